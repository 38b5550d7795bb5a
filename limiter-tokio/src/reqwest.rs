//! A `reqwest_middleware::Middleware` that sends each request through a [`Limiter`] (feature
//! `reqwest-middleware`).

use std::time::Duration;

use limiter_core::{AimdF32, Controller, HttpClassifier, Outcome, Verdict};
use reqwest_middleware::{Middleware, Next};

use crate::Limiter;
use crate::admission::{Refusal, Wait, hold_for};

/// Sends each request of a `reqwest_middleware::ClientWithMiddleware` through a [`Limiter`]:
/// admitted in FIFO order (or as [`max_wait`](LimitMiddleware::max_wait) and
/// [`refuse_at_limit`](LimitMiddleware::refuse_at_limit) allow), its latency measured from
/// admission to the response's headers, its answer classified by an [`HttpClassifier`]: a
/// `429`/`503`/`504` or no answer at all cuts the limit, a `Retry-After` or a spent
/// remaining-quota header holds the limiter's admissions until it has passed, as
/// [`Limiter::run`](limiter_core::Limiter::run) does.
///
/// A request the limiter turns away is not sent: it fails with
/// `reqwest_middleware::Error::Middleware` holding the [`Refusal`] (downcast it to tell why),
/// counted in the limiter's snapshot. Errors that say nothing about the dependency (a request
/// that could not be built, another middleware's) do not move the limit.
///
/// ```
/// use std::time::Duration;
/// use limiter_core::AimdConfig;
/// use limiter_tokio::{LimitMiddleware, Limiter};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let limiter = Limiter::aimd(AimdConfig::default())?;
/// let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
///     .with(LimitMiddleware::new(limiter.clone()).max_wait(Duration::from_millis(200)))
///     .build();
/// // client.get(url).send().await: waits at most 200 ms for a permit, then is limited.
/// # drop(client);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct LimitMiddleware<C: Controller = AimdF32> {
    limiter: Limiter<C>,
    classify: HttpClassifier,
    wait: Wait,
}

impl<C: Controller> LimitMiddleware<C> {
    /// A middleware over `limiter` that waits for a permit as long as it takes, with the default
    /// [`HttpClassifier`].
    pub fn new(limiter: Limiter<C>) -> Self {
        LimitMiddleware {
            limiter,
            classify: HttpClassifier::new(),
            wait: Wait::Queue(None),
        }
    }

    /// Classifies answers with `classify` (say, one that counts 500s as congestion).
    pub fn classifier(mut self, classify: HttpClassifier) -> Self {
        self.classify = classify;
        self
    }

    /// Waits at most `max_wait` for a permit, then fails the request with
    /// [`Refusal::TimedOut`] (or [`Refusal::Held`], if a `Retry-After` hold outlasted the wait).
    pub fn max_wait(mut self, max_wait: Duration) -> Self {
        self.wait = Wait::Queue(Some(max_wait));
        self
    }

    /// Never waits: at the limit, fails the request with [`Refusal::AtLimit`] (or
    /// [`Refusal::Held`] during a `Retry-After` hold).
    pub fn refuse_at_limit(mut self) -> Self {
        self.wait = Wait::Never;
        self
    }

    /// What the answer (or the error) says about the dependency.
    fn verdict(&self, answer: &reqwest_middleware::Result<reqwest::Response>) -> Verdict {
        match answer {
            Ok(response) => self.classify.verdict(response.status(), response.headers()),
            // A request that could not be built never reached the dependency; another
            // middleware's error is that middleware's.
            Err(e) if e.is_builder() || e.is_middleware() => Verdict::new(Outcome::Ignore),
            // No answer at all: refused, reset, timed out.
            Err(_) => Verdict::new(Outcome::Overload),
        }
    }
}

#[async_trait::async_trait]
impl<C> Middleware for LimitMiddleware<C>
where
    C: Controller + Send + 'static,
{
    async fn handle(
        &self,
        request: reqwest::Request,
        extensions: &mut http::Extensions,
        next: Next<'_>,
    ) -> reqwest_middleware::Result<reqwest::Response> {
        let admitted = match self.wait {
            Wait::Never => self
                .limiter
                .try_acquire()
                .map_err(|refused| Refusal::at_once(&self.limiter, refused)),
            Wait::Queue(None) => self.limiter.acquire().await.map_err(Refusal::from),
            Wait::Queue(Some(max_wait)) => {
                match tokio::time::timeout(max_wait, self.limiter.acquire()).await {
                    Ok(admitted) => admitted.map_err(Refusal::from),
                    Err(_elapsed) => Err(Refusal::ended_wait(&self.limiter)),
                }
            }
        };
        let permit = admitted.map_err(reqwest_middleware::Error::middleware)?;
        let answer = next.run(request, extensions).await;
        let verdict = self.verdict(&answer);
        hold_for(&permit, &verdict);
        permit.record_outcome_of(&verdict);
        answer
    }
}
