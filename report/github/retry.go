package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

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
		wait, retry := p.waitFor(attempt, resp, err)
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
	for attempt := 1; ; attempt++ {
		got, err := create(once)
		if err == nil || attempt >= p.Attempts || !mayHaveApplied(err) {
			return got, err
		}
		if err := p.Sleep(ctx, p.backoff(attempt)); err != nil {
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

// waitFor decides whether attempt's outcome is transient and how long to
// wait before the next. It may replace resp.Body with a re-readable copy.
func (p Retry) waitFor(attempt int, resp *http.Response, err error) (time.Duration, bool) {
	backoff := p.backoff(attempt)
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

// backoff is the wait after a failed attempt: doubling from Backoff, with
// jitter so that concurrent jobs do not retry in step, capped at MaxWait.
// The doubling stops at MaxWait (a shift by attempt−1 overflows from the
// 35th attempt and turns the jitter's bound negative), so any attempt
// number gives a wait in [min(Backoff, MaxWait), MaxWait].
func (p Retry) backoff(attempt int) time.Duration {
	d := max(min(p.Backoff, p.MaxWait), 1)
	for i := 1; i < attempt && d < p.MaxWait; i++ {
		if d > p.MaxWait/2 {
			d = p.MaxWait
		} else {
			d *= 2
		}
	}
	jitter := rand.N(d/4 + 1)
	if jitter >= p.MaxWait-d {
		return max(p.MaxWait, d)
	}
	return d + jitter
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
