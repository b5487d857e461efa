package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
	gh "github.com/google/go-github/v62/github"
)

// Retry says when a request is tried again. GitHub answers a busy moment
// with 502/503/504 and a burst of writes with a secondary rate limit (403
// or 429 with Retry-After, or a message saying so); both pass if the
// client waits, which is what GitHub's documentation asks of integrations.
type Retry struct {
	// Attempts is the number of tries in all; default 4.
	Attempts int
	// Backoff is the wait before the second try, doubled before each next
	// one (with jitter); default 1 s.
	Backoff time.Duration
	// MaxWait caps one wait: a rate limit that resets later than this is
	// returned to the caller as a RateLimitError instead; default 60 s.
	MaxWait time.Duration
	// Sleep waits d or until ctx is done; nil means a timer. Tests inject
	// a recorder so no test sleeps.
	Sleep func(ctx context.Context, d time.Duration) error
}

// defaultRetry is the policy of a zero Retry.
var defaultRetry = Retry{Attempts: 4, Backoff: time.Second, MaxWait: time.Minute}

func (r Retry) withDefaults() Retry {
	if r.Attempts <= 0 {
		r.Attempts = defaultRetry.Attempts
	}
	if r.Backoff <= 0 {
		r.Backoff = defaultRetry.Backoff
	}
	if r.MaxWait <= 0 {
		r.MaxWait = defaultRetry.MaxWait
	}
	if r.Sleep == nil {
		r.Sleep = sleepCtx
	}
	return r
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryTransport resends a request that met a transient failure. Edits,
// deletes and reads are idempotent; creates are marked noTransportRetry and
// retried by createIdempotent instead.
type retryTransport struct {
	next   http.RoundTripper
	policy Retry
}

// maxSniff bounds how much of a 403/429 body is read to tell a secondary
// rate limit from a refusal.
const maxSniff = 64 << 10

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := t.policy
	// A create is resent here only after a rate limit, which GitHub did
	// not apply; createIdempotent handles the rest.
	onlyRateLimits := req.Context().Value(noTransportRetry{}) != nil
	waits := p.waits()
	for attempt := 1; ; attempt++ {
		if attempt > 1 && req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, fmt.Errorf("%s %s: cannot resend a request whose body cannot be replayed", req.Method, req.URL.Path)
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
		resp, err := t.next.RoundTrip(req)
		if attempt >= p.Attempts {
			return resp, err
		}
		wait, retry := p.waitFor(waits.next(), resp, err)
		if !retry || (onlyRateLimits && (resp == nil || resp.StatusCode >= 500)) {
			return resp, err
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxSniff))
			resp.Body.Close()
		}
		if err := p.Sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// noTransportRetry marks a create: the transport resends it only after a
// rate limit (never applied); after a server error or a broken connection
// it may have been applied, so createIdempotent decides.
type noTransportRetry struct{}

// createIdempotent runs create; when it fails in a way that may still have
// been applied (a server error, a broken connection), it waits, asks find
// whether the object exists now, and only then creates again. A sticky
// comment must not be posted twice because a 502 hid a success.
func createIdempotent[T any](ctx context.Context, p Retry, create func(context.Context) (T, error), find func(context.Context) (T, bool, error)) (T, error) {
	once := context.WithValue(ctx, noTransportRetry{}, true)
	waits := p.waits()
	for attempt := 1; ; attempt++ {
		got, err := create(once)
		if err == nil || attempt >= p.Attempts || !mayHaveApplied(err) {
			return got, err
		}
		if err := p.Sleep(ctx, waits.next()); err != nil {
			return got, err
		}
		if found, ok, ferr := find(ctx); ferr == nil && ok {
			return found, nil
		}
	}
}

// mayHaveApplied is an error after which the server may have done the
// work: a 5xx answer, or no answer at all.
func mayHaveApplied(err error) bool {
	var er *gh.ErrorResponse
	if errors.As(err, &er) {
		return er.Response != nil && er.Response.StatusCode >= 500
	}
	var ue *url.Error
	return errors.As(err, &ue) && !isContextError(err)
}

// waitFor decides whether an attempt's outcome is transient and how long
// to wait before the next: backoff, this attempt's turn of the policy's
// waits, unless GitHub names a wait. It may replace resp.Body with a
// re-readable copy.
func (p Retry) waitFor(backoff time.Duration, resp *http.Response, err error) (time.Duration, bool) {
	if err != nil {
		// A connection reset or timeout; not a cancelled context.
		if resp == nil && !isContextError(err) {
			return backoff, true
		}
		return 0, false
	}
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return backoff, true
	case http.StatusForbidden, http.StatusTooManyRequests:
	default:
		return 0, false
	}

	// A rate limit: Retry-After (seconds) first, then a primary limit's
	// reset, then a secondary limit named only in the message (GitHub
	// asks for at least a minute then).
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		return waitOrGiveUp(time.Duration(s)*time.Second, p.MaxWait)
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return waitOrGiveUp(time.Until(time.Unix(reset, 0))+time.Second, p.MaxWait)
		}
		return 0, false
	}
	if resp.StatusCode == http.StatusTooManyRequests || secondaryLimit(resp) {
		return waitOrGiveUp(max(backoff, time.Minute), p.MaxWait)
	}
	return 0, false
}

// jitterSpread is backoff/v5's RandomizationFactor. The library draws from
// centre·[1 − f, 1 + f]; the window [d, 5d/4] is that with centre 9d/8
// and f = 1/9.
const jitterSpread = 1.0 / 9

// maxCentre keeps the library's draw, centre·(1 + f) in float64, inside a
// time.Duration. It binds only for a MaxWait over two centuries: the
// doubling then stops at 0.8 of the largest Duration and the waits are
// drawn around that instead of reaching MaxWait.
const maxCentre = time.Duration(math.MaxInt64 / 10 * 8)

// centre is the middle of the window [d, 5d/4], saturating at maxCentre.
func centre(d time.Duration) time.Duration {
	if d > maxCentre/9*8 {
		return maxCentre
	}
	return d + d/8
}

// waitSeq is the waits between one request's (or one create's) attempts,
// an exponential backoff: doubling from Backoff so that a busy GitHub gets
// room, with jitter so that concurrent jobs do not retry in step, capped
// at MaxWait. The n-th wait is drawn from [d, 5d/4], d =
// min(Backoff·2^(n−1), MaxWait), and cut to MaxWait. backoff/v5 does the
// doubling and the draw and saturates the doubling at its MaxInterval, so
// no attempt count overflows (the hand-written shift it replaced
// overflowed from the 35th attempt and made rand.N panic).
type waitSeq struct {
	exp          backoff.ExponentialBackOff
	floor, limit time.Duration
}

// waits starts the sequence of waits of a policy with defaults applied.
func (p Retry) waits() *waitSeq {
	floor := max(min(p.Backoff, p.MaxWait), 1)
	return &waitSeq{
		exp: backoff.ExponentialBackOff{
			InitialInterval:     centre(floor),
			RandomizationFactor: jitterSpread,
			Multiplier:          2,
			// Once the doubling passes MaxWait the window is
			// [MaxWait, 5/4·MaxWait], so every later wait is MaxWait.
			MaxInterval: centre(p.MaxWait),
		},
		floor: floor,
		limit: p.MaxWait,
	}
}

// next is the wait after the next failed attempt, in [floor, MaxWait]: the
// clamp only absorbs the draw's rounding and the maxCentre cut.
func (w *waitSeq) next() time.Duration {
	return min(max(w.exp.NextBackOff(), w.floor), w.limit)
}

func waitOrGiveUp(d, maxWait time.Duration) (time.Duration, bool) {
	if d > maxWait {
		return 0, false
	}
	return max(d, 0), true
}

// secondaryLimit reads the start of a 403's body for GitHub's wording and
// puts it back for the caller.
func secondaryLimit(resp *http.Response) bool {
	head, err := io.ReadAll(io.LimitReader(resp.Body, maxSniff))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	if err != nil {
		return false
	}
	return namesRateLimit(string(head))
}

// namesRateLimit is GitHub's wording for a 403 that is a (secondary) rate
// limit rather than a refusal; the transport waits on it and wrap reports
// it as a RateLimitError, so both read it the same way.
func namesRateLimit(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "rate limit")
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
