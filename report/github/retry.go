package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
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

// DefaultRetry is the policy of a zero Retry.
var DefaultRetry = Retry{Attempts: 4, Backoff: time.Second, MaxWait: time.Minute}

func (r Retry) withDefaults() Retry {
	if r.Attempts <= 0 {
		r.Attempts = DefaultRetry.Attempts
	}
	if r.Backoff <= 0 {
		r.Backoff = DefaultRetry.Backoff
	}
	if r.MaxWait <= 0 {
		r.MaxWait = DefaultRetry.MaxWait
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

// retryTransport resends a request that met a transient failure. Writes are
// retried too: a 502 from GitHub almost always means the request was not
// applied, and the sticky comment is found again by its marker on the next
// run should one ever be duplicated.
type retryTransport struct {
	next   http.RoundTripper
	policy Retry
}

// maxSniff bounds how much of a 403/429 body is read to tell a secondary
// rate limit from a refusal.
const maxSniff = 64 << 10

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := t.policy
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
		if !retry {
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

// waitFor decides whether attempt's outcome is transient and how long to
// wait before the next. It may replace resp.Body with a re-readable copy.
func (p Retry) waitFor(attempt int, resp *http.Response, err error) (time.Duration, bool) {
	backoff := p.Backoff << (attempt - 1)
	backoff += rand.N(backoff/4 + 1) // jitter: concurrent jobs do not retry in step
	if err != nil {
		// A connection reset or timeout; not a cancelled context.
		if resp == nil && !isContextError(err) {
			return min(backoff, p.MaxWait), true
		}
		return 0, false
	}
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return min(backoff, p.MaxWait), true
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
	return strings.Contains(strings.ToLower(string(head)), "secondary rate limit")
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
