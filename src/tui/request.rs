//! Typed requests. A request is an operation value (what to do, with its
//! parameters) and the function that turns its result into its owner's own
//! message: `cx.request(SLOT, ListInventory { .. }, Msg::Page)`. The runtime
//! runs it on the [`Services`] and sends the message back; the App hands it to
//! the owner, whose message type says which answers it can get, so no "reply
//! of another kind" is left to ignore.
//!
//! A slot is where one request at a time is in flight: declared by its owner
//! (a screen or the App) as a local name, `Slot::new("inventory", "page")`. A
//! newer request in the same slot aborts the older; each request's token lets
//! the owner drop an answer it no longer waits for.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

use crate::tui::services::Services;
use crate::tui::vocab::ErrorInfo;

/// One kind of work the runtime does for a screen: an API call, a local
/// file, the history. Its value is the request's parameters, which tests
/// compare.
pub trait Operation: fmt::Debug + Clone + PartialEq + Send + Sync + 'static {
    type Output: Send + 'static;

    fn run(
        self,
        services: &Services,
    ) -> impl Future<Output = Result<Self::Output, ErrorInfo>> + Send;
}

/// Where one request at a time is in flight: the owner, its local name, and a
/// lane for the few slots that keep several at once (`MemberDetail`, the
/// monitor's `Realtime`), so that the lane count bounds what is in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Slot {
    owner: &'static str,
    name: &'static str,
    lane: u8,
}

impl Slot {
    pub const fn new(owner: &'static str, name: &'static str) -> Self {
        Self {
            owner,
            name,
            lane: 0,
        }
    }

    /// The same slot's lane `lane`.
    pub const fn lane(self, lane: u8) -> Self {
        Self { lane, ..self }
    }

    pub fn lane_number(self) -> u8 {
        self.lane
    }

    /// Whether `self` is `other` in any lane.
    pub fn is(self, other: Slot) -> bool {
        self.owner == other.owner && self.name == other.name
    }
}

/// What an owner's message type must be: sent across tasks.
pub trait Message: Any + Send {}

impl<M: Any + Send> Message for M {}

type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// An operation with the function that makes its owner's message, its types
/// erased so that every request travels in one [`Effect`](crate::tui::effect::Effect).
pub struct Job(Box<dyn Erased>);

trait Erased: Send + Sync {
    fn operation(&self) -> &dyn Any;
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn clone_box(&self) -> Box<dyn Erased>;
    fn run(self: Box<Self>, services: Services) -> Boxed<Delivery>;
    fn deliver(&self, result: Box<dyn Any>) -> Option<Delivery>;
    fn fail(&self, error: ErrorInfo) -> Delivery;
    fn same(&self, other: &dyn Any) -> bool;
}

struct Typed<O: Operation, M> {
    operation: O,
    to_message: fn(Result<O::Output, ErrorInfo>) -> M,
}

/// What a finished request hands back: the failure (the App logs it) and
/// the owner's message.
struct Delivery {
    failure: Option<Box<ErrorInfo>>,
    message: Box<dyn Any + Send>,
}

fn deliver<T, M: Message>(
    result: Result<T, ErrorInfo>,
    to_message: fn(Result<T, ErrorInfo>) -> M,
) -> Delivery {
    Delivery {
        failure: result.as_ref().err().cloned().map(Box::new),
        message: Box::new(to_message(result)),
    }
}

impl<O: Operation, M: Message> Erased for Typed<O, M> {
    fn operation(&self) -> &dyn Any {
        &self.operation
    }

    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.operation.fmt(f)
    }

    fn clone_box(&self) -> Box<dyn Erased> {
        Box::new(Self {
            operation: self.operation.clone(),
            to_message: self.to_message,
        })
    }

    fn run(self: Box<Self>, services: Services) -> Boxed<Delivery> {
        Box::pin(async move {
            let result = self.operation.run(&services).await;
            deliver(result, self.to_message)
        })
    }

    fn deliver(&self, result: Box<dyn Any>) -> Option<Delivery> {
        let result = result.downcast::<Result<O::Output, ErrorInfo>>().ok()?;
        Some(deliver(*result, self.to_message))
    }

    fn fail(&self, error: ErrorInfo) -> Delivery {
        deliver(Err(error), self.to_message)
    }

    fn same(&self, other: &dyn Any) -> bool {
        other
            .downcast_ref::<O>()
            .is_some_and(|other| *other == self.operation)
    }
}

impl Job {
    pub fn new<O: Operation, M: Message>(
        operation: O,
        to_message: fn(Result<O::Output, ErrorInfo>) -> M,
    ) -> Self {
        Self(Box::new(Typed {
            operation,
            to_message,
        }))
    }

    /// The operation, when it is an `O`: what tests look at.
    pub fn operation<O: Operation>(&self) -> Option<&O> {
        self.0.operation().downcast_ref()
    }

    /// Runs the operation; its answer for the request `(slot, token)`.
    pub async fn run(self, slot: Slot, token: u64, services: Services) -> Answer {
        let Delivery { failure, message } = self.0.run(services).await;
        Answer {
            slot,
            token,
            failure,
            message,
        }
    }

    /// The answer `result` would make, as if the operation had returned it;
    /// `None` when `T` is not the operation's output (a test's mistake).
    pub fn answer<T: Send + 'static>(
        &self,
        slot: Slot,
        token: u64,
        result: Result<T, ErrorInfo>,
    ) -> Option<Answer> {
        let Delivery { failure, message } = self.0.deliver(Box::new(result))?;
        Some(Answer {
            slot,
            token,
            failure,
            message,
        })
    }

    /// The answer the operation's failure with `error` would make.
    pub fn fail(&self, slot: Slot, token: u64, error: ErrorInfo) -> Answer {
        let Delivery { failure, message } = self.0.fail(error);
        Answer {
            slot,
            token,
            failure,
            message,
        }
    }
}

impl Clone for Job {
    fn clone(&self) -> Self {
        Self(self.0.clone_box())
    }
}

impl fmt::Debug for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.debug(f)
    }
}

/// Two jobs are equal when their operations are: the same kind, the same
/// parameters.
impl PartialEq for Job {
    fn eq(&self, other: &Self) -> bool {
        self.0.same(other.0.operation())
    }
}

/// The answer to one request, on its way to the owner of its slot.
pub struct Answer {
    pub slot: Slot,
    pub token: u64,
    /// The request's failure, if it failed: the App's error log takes it.
    pub failure: Option<Box<ErrorInfo>>,
    message: Box<dyn Any + Send>,
}

impl Answer {
    /// The answer `to_message` makes of `result` for the request `(slot,
    /// token)`: what the runtime sends when the operation returns it.
    pub fn of<T, M: Message>(
        slot: Slot,
        token: u64,
        result: Result<T, ErrorInfo>,
        to_message: fn(Result<T, ErrorInfo>) -> M,
    ) -> Self {
        let Delivery { failure, message } = deliver(result, to_message);
        Self {
            slot,
            token,
            failure,
            message,
        }
    }

    /// Whether the message is an `M` (its owner's), without opening it.
    pub fn is<M: Message>(&self) -> bool {
        (*self.message).is::<M>()
    }

    /// The message and its token, when the message is an `M`; the answer
    /// back otherwise, for the next owner to open.
    pub fn open<M: Message>(self) -> Result<(u64, M), Self> {
        let Self {
            slot,
            token,
            failure,
            message,
        } = self;
        match message.downcast::<M>() {
            Ok(message) => Ok((token, *message)),
            Err(message) => Err(Self {
                slot,
                token,
                failure,
                message,
            }),
        }
    }
}

impl fmt::Debug for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Answer")
            .field("slot", &self.slot)
            .field("token", &self.token)
            .field("failure", &self.failure)
            .finish_non_exhaustive()
    }
}
