//! The families of one scrape: samples kept in the order pushed, info
//! families with many label sets, and one family per name whatever the number
//! of contexts served.

use std::borrow::Borrow;
use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::{MetricType, TypedMetric};
use prometheus_client::registry::{Registry, Unit};

use crate::exporter::cache::DurationHistogram;

pub(super) type Labels = Vec<(&'static str, String)>;
pub(super) type Gauges = Ordered<Gauge>;
pub(super) type Counters = Ordered<Counter>;

/// A family whose samples keep the order they were pushed in (the crate's
/// `Family` is a hash map: its order changes from scrape to scrape).
#[derive(Debug)]
pub(super) struct Ordered<M>(Vec<(Labels, M)>);

impl<M> Default for Ordered<M> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<M> Ordered<M> {
    fn push(&mut self, labels: Labels, metric: M) {
        self.0.push((labels, metric));
    }
}

impl<M: TypedMetric> TypedMetric for Ordered<M> {
    const TYPE: MetricType = M::TYPE;
}

impl<M: EncodeMetric + TypedMetric> EncodeMetric for Ordered<M> {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        // A lone sample without labels (one workspace served) is written
        // `name 1`, not `name{} 1`: as the family's own sample.
        if let [(labels, metric)] = self.0.as_slice()
            && labels.is_empty()
        {
            return metric.encode(encoder);
        }
        for (labels, metric) in &self.0 {
            metric.encode(encoder.encode_family(labels)?)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        M::TYPE
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// An OpenMetrics info family with one sample per label set (the crate's
/// `Info` holds one label set only).
#[derive(Debug, Default)]
pub(super) struct InfoFamily(pub(super) Vec<Labels>);

impl TypedMetric for InfoFamily {
    const TYPE: MetricType = MetricType::Info;
}

impl EncodeMetric for InfoFamily {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        for labels in &self.0 {
            // Through `encode_family` with no labels of its own, 0.25 writes an
            // empty label (`{a="1",,b="2"}`); as the info's own set it does not.
            encoder.encode_info(labels)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn gauge(value: i64) -> Gauge {
    let gauge = Gauge::default();
    gauge.set(value);
    gauge
}

fn counter(value: u64) -> Counter {
    let counter = Counter::default();
    counter.inc_by(value);
    counter
}

pub(super) type Floats = Ordered<Gauge<f64, AtomicU64>>;
pub(super) type Histograms = Ordered<Histogram>;

/// One histogram's value, as the cache keeps it.
#[derive(Debug)]
pub(super) struct Histogram(DurationHistogram);

impl TypedMetric for Histogram {
    const TYPE: MetricType = MetricType::Histogram;
}

impl EncodeMetric for Histogram {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        let histogram = &self.0;
        encoder.encode_histogram::<NoLabelSet>(
            histogram.sum_seconds,
            histogram.count(),
            &histogram.buckets(),
            None,
        )
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }
}

/// One family's samples, of every context served.
#[derive(Debug)]
pub(super) enum Family {
    Gauges(Gauges),
    Counters(Counters),
    Floats(Floats),
    Histograms(Histograms),
    Info(InfoFamily),
}

/// The families of one scrape, in the order first seen, each gathering the
/// samples of every context: a family appears once, whatever the number of
/// contexts.
#[derive(Default)]
pub(super) struct Families(Vec<(String, String, Family)>);

impl Families {
    pub(super) fn family(
        &mut self,
        name: &str,
        help: &str,
        empty: impl FnOnce() -> Family,
    ) -> &mut Family {
        let index = match self.0.iter().position(|(known, ..)| known == name) {
            Some(index) => index,
            None => {
                self.0.push((name.to_owned(), help.to_owned(), empty()));
                self.0.len() - 1
            }
        };
        &mut self.0[index].2
    }

    pub(super) fn gauge(&mut self, name: &str, help: &str, labels: Labels, value: i64) {
        if let Family::Gauges(family) =
            self.family(name, help, || Family::Gauges(Gauges::default()))
        {
            family.push(labels, gauge(value));
        }
    }

    pub(super) fn counter(&mut self, name: &str, help: &str, labels: Labels, value: u64) {
        if let Family::Counters(family) =
            self.family(name, help, || Family::Counters(Counters::default()))
        {
            family.push(labels, counter(value));
        }
    }

    /// One sample per labelled value, in order, each added by `add`
    /// ([`Families::gauge`], [`Families::counter`]).
    pub(super) fn samples<V: Copy>(
        &mut self,
        name: &str,
        help: &str,
        samples: impl IntoIterator<Item = (Labels, impl Borrow<V>)>,
        add: fn(&mut Self, &str, &str, Labels, V),
    ) {
        for (labels, value) in samples {
            add(self, name, help, labels, *value.borrow());
        }
    }

    pub(super) fn float(&mut self, name: &str, help: &str, labels: Labels, value: f64) {
        if let Family::Floats(family) =
            self.family(name, help, || Family::Floats(Floats::default()))
        {
            let gauge = Gauge::<f64, AtomicU64>::default();
            gauge.set(value);
            family.push(labels, gauge);
        }
    }

    pub(super) fn histogram(
        &mut self,
        name: &str,
        help: &str,
        labels: Labels,
        value: &DurationHistogram,
    ) {
        if let Family::Histograms(family) =
            self.family(name, help, || Family::Histograms(Histograms::default()))
        {
            family.push(labels, Histogram(value.clone()));
        }
    }

    pub(super) fn info(&mut self, name: &str, help: &str, labels: Labels) {
        if let Family::Info(family) =
            self.family(name, help, || Family::Info(InfoFamily::default()))
        {
            family.0.push(labels);
        }
    }

    /// Registers every family; one whose name ends in a unit (`_seconds`,
    /// `_bytes`) is registered with it, for OpenMetrics' `# UNIT` line.
    pub(super) fn register(self, registry: &mut Registry) {
        for (name, help, family) in self.0 {
            let (name, unit) = match (name.strip_suffix("_seconds"), name.strip_suffix("_bytes")) {
                (Some(base), _) => (base.to_owned(), Some(Unit::Seconds)),
                (_, Some(base)) => (base.to_owned(), Some(Unit::Bytes)),
                _ => (name, None),
            };
            match family {
                Family::Gauges(family) => register(registry, name, help, unit, family),
                Family::Counters(family) => register(registry, name, help, unit, family),
                Family::Floats(family) => register(registry, name, help, unit, family),
                Family::Histograms(family) => register(registry, name, help, unit, family),
                Family::Info(family) => register(registry, name, help, unit, family),
            }
        }
    }
}

fn register(
    registry: &mut Registry,
    name: String,
    help: String,
    unit: Option<Unit>,
    metric: impl prometheus_client::registry::Metric,
) {
    match unit {
        Some(unit) => registry.register_with_unit(name, help, unit, metric),
        None => registry.register(name, help, metric),
    }
}
