package github

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// TestRetry: transient answers are retried with the body replayed, after
// the wait GitHub asks for; refusals are not.
func TestRetry(t *testing.T) {
	list := "/repos/o/r/issues/7/comments"
	secondary := `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}`
	for _, tc := range []struct {
		name      string
		stubs     func(t *testing.T) []*stub
		wantWaits func(w []time.Duration) bool
		wantErr   string
	}{
		{"502 once on the create, not applied: looked for, then created", func(t *testing.T) []*stub {
			return []*stub{
				commentPage(t, "", 1, true, comment{3, body}), // an older marked comment (behavior new)
				{method: "POST", path: list, status: http.StatusBadGateway, body: `{"message":"Server Error"}`, check: wantBody(body)},
				commentPage(t, "", 1, true, comment{3, body}),
				createComment(t, "", body, 9),
			}
		}, func(w []time.Duration) bool {
			return len(w) == 1 && w[0] >= time.Second && w[0] <= 1250*time.Millisecond
		}, ""},
		{"502 on a create GitHub applied: found, not posted twice", func(t *testing.T) []*stub {
			return []*stub{
				commentPage(t, "", 1, true, comment{3, body}),
				{method: "POST", path: list, status: http.StatusBadGateway, body: `{"message":"Server Error"}`},
				commentPage(t, "", 1, true, comment{3, body}, comment{9, body}),
			}
		}, func(w []time.Duration) bool { return len(w) == 1 }, ""},
		{"503 then 504 on the listing, then served", func(t *testing.T) []*stub {
			return []*stub{
				{method: "GET", path: list, status: http.StatusServiceUnavailable},
				{method: "GET", path: list, status: http.StatusGatewayTimeout},
				commentPage(t, "", 1, true),
				createComment(t, "", body, 9),
			}
		}, func(w []time.Duration) bool {
			return len(w) == 2 && w[0] < 2*time.Second && w[1] >= 2*time.Second && w[1] <= 2500*time.Millisecond
		}, ""},
		{"secondary rate limit with Retry-After", func(t *testing.T) []*stub {
			return []*stub{
				commentPage(t, "", 1, true),
				{method: "POST", path: list, status: http.StatusForbidden, header: map[string]string{"Retry-After": "7"}, body: secondary},
				createComment(t, "", body, 9),
			}
		}, func(w []time.Duration) bool { return slices.Equal(w, []time.Duration{7 * time.Second}) }, ""},
		{"secondary rate limit named only in the message waits a minute", func(t *testing.T) []*stub {
			return []*stub{
				commentPage(t, "", 1, true),
				{method: "POST", path: list, status: http.StatusForbidden, body: secondary},
				createComment(t, "", body, 9),
			}
		}, func(w []time.Duration) bool { return slices.Equal(w, []time.Duration{time.Minute}) }, ""},
		{"four server errors: the last answer is the error", func(t *testing.T) []*stub {
			s := make([]*stub, 4)
			for i := range s {
				s[i] = &stub{method: "GET", path: list, status: http.StatusBadGateway, body: `{"message":"Server Error"}`}
			}
			return s
		}, func(w []time.Duration) bool { return len(w) == 3 }, "list comments on o/r#7: GitHub answered 502: Server Error"},
		{"a refusal is not retried", func(t *testing.T) []*stub {
			return []*stub{
				commentPage(t, "", 1, true),
				{method: "POST", path: list, status: http.StatusForbidden, body: `{"message":"Resource not accessible by integration"}`},
			}
		}, func(w []time.Duration) bool { return len(w) == 0 }, "create comment on o/r#7: the token lacks the permission pull-requests: write"},
		{"a secondary rate limit longer than MaxWait is a rate limit, not a refusal", func(t *testing.T) []*stub {
			return []*stub{
				commentPage(t, "", 1, true),
				{method: "POST", path: list, status: http.StatusForbidden, header: map[string]string{"Retry-After": "600"}, body: secondary},
			}
		}, func(w []time.Duration) bool { return len(w) == 0 }, "create comment on o/r#7: rate limited, retry after 10m0s"},
		{"a rate limit resetting in an hour is not waited for", func(t *testing.T) []*stub {
			reset := time.Now().Add(time.Hour).Unix()
			return []*stub{{method: "GET", path: list, status: http.StatusForbidden,
				header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": itoa(reset)},
				body:   `{"message":"API rate limit exceeded"}`}}
		}, func(w []time.Duration) bool { return len(w) == 0 }, "list comments on o/r#7: rate limited until"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.stubs(t)...)
			var waits []time.Duration
			c, err := New(Config{Token: testToken, BaseURL: f.url(), Retry: noWait(t, &waits)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.UpsertPRComment(context.Background(), "o", "r", 7, body, BehaviorNew)
			if tc.wantErr == "" {
				if err != nil || res.Action != Created || res.ID != 9 {
					t.Errorf("%+v, %v", res, err)
				}
			} else {
				checkErr(t, err, nil, tc.wantErr)
			}
			if !tc.wantWaits(waits) {
				t.Errorf("waits %v", waits)
			}
		})
	}
}

// TestRetryStopsWhenCancelled: a cancelled run does not keep waiting.
func TestRetryStopsWhenCancelled(t *testing.T) {
	f := newFake(t, &stub{method: "GET", path: "/repos/o/r/issues/7/comments", status: http.StatusBadGateway})
	ctx, cancel := context.WithCancel(context.Background())
	c, err := New(Config{Token: testToken, BaseURL: f.url(), Retry: Retry{Sleep: func(ctx context.Context, _ time.Duration) error {
		cancel()
		return ctx.Err()
	}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.UpsertPRComment(ctx, "o", "r", 7, body, BehaviorUpdate)
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), testToken) {
		t.Errorf("%v", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRetryManyAttempts: however many attempts a policy allows, each wait
// doubles up to MaxWait and stays there (Backoff << (attempt−1) overflowed
// and rand.N panicked from attempt 35), for default and extreme policies.
func TestRetryManyAttempts(t *testing.T) {
	for _, policy := range []Retry{
		{Attempts: 200},
		{Attempts: 100, Backoff: time.Nanosecond, MaxWait: time.Duration(1<<63 - 1)},
		{Attempts: 100, Backoff: time.Duration(1<<62 + 1), MaxWait: time.Duration(1<<63 - 1)},
		{Attempts: 70, Backoff: time.Hour, MaxWait: time.Second},
	} {
		var waits []time.Duration
		policy.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
		calls := 0
		tr := &retryTransport{policy: policy.withDefaults(), next: roundTripFunc(func(*http.Request) (*http.Response, error) {
			calls++
			return &http.Response{StatusCode: http.StatusServiceUnavailable, Body: http.NoBody, Header: http.Header{}}, nil
		})}
		req, _ := http.NewRequest("GET", "http://127.0.0.1/x", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusServiceUnavailable || calls != policy.Attempts || len(waits) != policy.Attempts-1 {
			t.Fatalf("%+v: %v, %v, %d calls, %d waits", policy, resp, err, calls, len(waits))
		}
		p := tr.policy
		floor := min(p.Backoff, p.MaxWait)
		for i, w := range waits {
			if w < floor || w > p.MaxWait {
				t.Errorf("%+v: wait %d = %v outside [%v, %v]", policy, i+1, w, floor, p.MaxWait)
			}
			if i > 0 && waits[i-1] >= p.MaxWait && w != p.MaxWait {
				t.Errorf("%+v: wait %d = %v fell back below the cap", policy, i+1, w)
			}
		}
		if last := waits[len(waits)-1]; last < p.MaxWait*4/5 {
			t.Errorf("%+v: the last wait %v never reached the cap", policy, last)
		}
	}
}

// TestWaitsWindow: the n-th wait is drawn from [d, 5d/4], d =
// min(Backoff·2^(n−1), MaxWait), cut to MaxWait; once the doubling passes
// MaxWait every wait is MaxWait exactly.
func TestWaitsWindow(t *testing.T) {
	for _, policy := range []Retry{
		{},
		{Backoff: 3 * time.Second, MaxWait: 50 * time.Second},
		{Backoff: time.Millisecond, MaxWait: time.Hour},
		{Backoff: time.Minute, MaxWait: time.Second},
	} {
		p := policy.withDefaults()
		for range 200 {
			w, d := p.waits(), min(p.Backoff, p.MaxWait)
			for n := 1; n <= 40; n++ {
				lo, hi := d, min(d+d/4, p.MaxWait)
				if got := w.next(); got < lo || got > hi {
					t.Fatalf("%+v: wait %d = %v outside [%v, %v]", policy, n, got, lo, hi)
				}
				d = min(2*d, p.MaxWait)
			}
		}
	}
}

// TestWaitsNeverOverflow: however many attempts and however extreme the
// policy, no wait overflows, goes negative or panics: each lies in
// [min(Backoff, MaxWait), MaxWait] and a run of waits never falls back
// once it has reached MaxWait.
func TestWaitsNeverOverflow(t *testing.T) {
	const top = time.Duration(math.MaxInt64)
	edge := maxCentre / 9 * 8 // the largest d whose window the library draws whole
	for _, policy := range []Retry{
		{Backoff: top, MaxWait: top},
		{Backoff: time.Nanosecond, MaxWait: top},
		{Backoff: 1<<62 + 1, MaxWait: top},
		{Backoff: edge, MaxWait: edge},
		{Backoff: edge + 1, MaxWait: edge + 1},
		{Backoff: top, MaxWait: time.Second},
		{Backoff: time.Hour, MaxWait: time.Nanosecond},
		{Backoff: time.Nanosecond, MaxWait: time.Nanosecond},
	} {
		p := policy.withDefaults()
		floor := min(p.Backoff, p.MaxWait)
		w := p.waits()
		capped := false
		for n := 1; n <= 100_000; n++ {
			got := w.next()
			if got < floor || got > p.MaxWait {
				t.Fatalf("%+v: wait %d = %v outside [%v, %v]", policy, n, got, floor, p.MaxWait)
			}
			if capped && got != p.MaxWait {
				t.Fatalf("%+v: wait %d = %v fell back below the cap", policy, n, got)
			}
			capped = capped || got == p.MaxWait
		}
	}
}

// TestCreateIdempotentManyAttempts: a create that keeps failing with a
// server error is tried exactly Attempts times, looked for before each
// retry, and waits within the policy however large the count.
func TestCreateIdempotentManyAttempts(t *testing.T) {
	var waits []time.Duration
	p := Retry{Attempts: 1000, Backoff: time.Nanosecond, MaxWait: time.Duration(math.MaxInt64),
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}.withDefaults()
	creates, finds := 0, 0
	_, err := createIdempotent(context.Background(), p,
		func(context.Context) (int, error) {
			creates++
			return 0, &gh.ErrorResponse{Response: &http.Response{StatusCode: http.StatusBadGateway}}
		},
		func(context.Context) (int, bool, error) { finds++; return 0, false, nil })
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || creates != p.Attempts || finds != p.Attempts-1 || len(waits) != p.Attempts-1 {
		t.Fatalf("err %T, %d creates, %d finds, %d waits; want the 502 after %d, %d, %d", err, creates, finds, len(waits), p.Attempts, p.Attempts-1, p.Attempts-1)
	}
	for i, w := range waits {
		if w < p.Backoff || w > p.MaxWait {
			t.Errorf("wait %d = %v outside [%v, %v]", i+1, w, p.Backoff, p.MaxWait)
		}
	}
}
