# vantage in a container: the release binary on a distroless base (no shell,
# no package manager; glibc and libgcc only, which the binary needs: glibc
# 2.17 or newer), running as the unprivileged user `nonroot` (65532).
#
# Built from an unpacked release tarball (scripts/dist), the tarball's
# directory as the context:
#   tar -xzf dist/vantage-0.1.0-x86_64-unknown-linux-gnu.tar.gz
#   docker build -f Dockerfile -t registry.internal/vantage:0.1.0 vantage-0.1.0-x86_64-unknown-linux-gnu
# Every COPY below names a file of the tarball (tests/cli/install.rs checks
# them against scripts/dist's TARBALL_FILES).
#
# No config file is needed: VANTAGE_BASE_URL, VANTAGE_WORKSPACE,
# SERVICE_API_KEY, VANTAGE_HISTORY_URL and PGPASSWORD (README, "Configuration
# from the environment").
FROM gcr.io/distroless/cc-debian12:nonroot
COPY vantage /usr/local/bin/vantage
COPY config.example.toml /usr/share/doc/vantage/config.example.toml
COPY man/vantage.1 /usr/share/man/man1/vantage.1
USER nonroot
ENTRYPOINT ["/usr/local/bin/vantage"]
