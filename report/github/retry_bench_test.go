package github

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofri/go-github-ratelimit/v2/github_ratelimit/github_secondary_ratelimit"
	"github.com/hashicorp/go-retryablehttp"
)

// scriptedGitHub answers each request by its X-Try header: the first
// attempt of a try gets the scenario's transient answer (none, a 502, a
// secondary rate limit with Retry-After: 1), every later one 200 with a
// comment. A request whose body is not the comment it was sent with gets
// 400: a retry must send the body again.
type scriptedGitHub struct {
	mu    sync.Mutex
	tries map[string]int
}

const benchComment = `{"body":"<!-- capreport -->\n| workload | verdict |\n|---|---|\n| shop/api | fail |\n"}`

func (s *scriptedGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.tries[r.Header.Get("X-Try")]++
	n := s.tries[r.Header.Get("X-Try")]
	s.mu.Unlock()
	if r.Method == http.MethodPost && string(body) != benchComment {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if n == 1 {
		switch r.Header.Get("X-Scenario") {
		case "502":
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, `{"message":"Server Error"}`)
			return
		case "secondary":
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
			return
		}
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, `{"id":9,"body":"ok"}`)
}

// libraryTransport is the alternative issue 32 names: go-retryablehttp's
// loop over go-github-ratelimit's secondary-limit transport. Neither takes
// an injected sleep: both wait on their own timers, so its secondary
// limit costs the second Retry-After asks for (go-github-ratelimit treats
// Retry-After: 0 as no limit and returns the 403), where the hand-written
// transport's policy is told not to sleep, as the tests tell it.
func libraryTransport(base http.RoundTripper) http.RoundTripper {
	c := retryablehttp.NewClient()
	c.HTTPClient = &http.Client{Transport: github_secondary_ratelimit.New(base)}
	c.RetryMax = defaultRetry.Attempts - 1
	c.RetryWaitMin, c.RetryWaitMax = 0, 0
	c.Logger = nil
	c.ErrorHandler = retryablehttp.PassthroughErrorHandler
	return &retryablehttp.RoundTripper{Client: c}
}

// BenchmarkRetryTransport sends a comment (POST) or reads a page (GET)
// through the hand-written transport and through the libraries, against a
// local server: a plain 200, a 502 then 200 (GET: a create is not
// resent after a server error), a secondary rate limit then 200 (POST,
// whose body must be sent again). failed/op counts the requests that did
// not end in 200. The network dwarfs either in a real run; this measures
// what each adds per request.
func BenchmarkRetryTransport(b *testing.B) {
	srv := httptest.NewServer(&scriptedGitHub{tries: map[string]int{}})
	defer srv.Close()
	base := srv.Client().Transport
	noSleep := Retry{Sleep: func(context.Context, time.Duration) error { return nil }}.withDefaults()
	transports := []struct {
		name string
		rt   http.RoundTripper
	}{
		{"hand-written", &retryTransport{next: base, policy: noSleep}},
		{"retryablehttp+ratelimit", libraryTransport(base)},
	}
	var id atomic.Int64
	for _, scenario := range []struct{ name, method string }{{"ok", "POST"}, {"502", "GET"}, {"secondary", "POST"}} {
		for _, tr := range transports {
			b.Run(scenario.name+"/"+tr.name, func(b *testing.B) {
				b.ReportAllocs()
				failed := 0
				for b.Loop() {
					req, _ := http.NewRequest(scenario.method, srv.URL+"/repos/o/r/issues/7/comments", nil)
					if scenario.method == http.MethodPost {
						req, _ = http.NewRequest(scenario.method, srv.URL+"/repos/o/r/issues/7/comments", bytes.NewReader([]byte(benchComment)))
					}
					req.Header.Set("X-Scenario", scenario.name)
					req.Header.Set("X-Try", strconv.FormatInt(id.Add(1), 10))
					resp, err := tr.rt.RoundTrip(req)
					if err != nil {
						failed++
						continue
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						failed++
					}
				}
				b.ReportMetric(float64(failed), "failed/op")
			})
		}
	}
}
