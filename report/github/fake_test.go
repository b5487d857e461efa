package github

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

const testToken = "ghp_testtoken0123456789"

// stub answers one request, once; like cli/cli's httpmock registry, every
// stub must be used and any other request fails the test.
type stub struct {
	method, path string
	query        url.Values        // each key given must match exactly
	status       int               // default 200
	header       map[string]string // "{{base}}" becomes the server's URL
	body         string            // response; "{{base}}" as above
	check        func(t *testing.T, body map[string]any)
	used         bool
}

// fakeGitHub is an httptest server that speaks like the GitHub API.
type fakeGitHub struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	stubs []*stub
}

func newFake(t *testing.T, stubs ...*stub) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{t: t, stubs: stubs}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, s := range f.stubs {
			if !s.used {
				t.Errorf("expected request not made: %s %s %v", s.method, s.path, s.query)
			}
		}
	})
	return f
}

func (f *fakeGitHub) url() string { return f.srv.URL }

func (f *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	raw, _ := io.ReadAll(r.Body)
	if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
		t.Errorf("%s %s: Authorization %q", r.Method, r.URL, got)
	}
	f.mu.Lock()
	var s *stub
	for _, c := range f.stubs {
		if !c.used && c.method == r.Method && c.path == r.URL.Path && queryMatches(c.query, r.URL.Query()) {
			s = c
			s.used = true
			break
		}
	}
	f.mu.Unlock()
	if s == nil && r.Method == http.MethodGet && (r.URL.Path == "/user" || r.URL.Path == "/api/v3/user") {
		// GitHub's answer to GITHUB_TOKEN, when a test stubs none.
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"message":"Resource not accessible by integration"}`)
		return
	}
	if s == nil {
		t.Errorf("unexpected request: %s %s", r.Method, r.URL)
		http.Error(w, `{"message":"unexpected"}`, http.StatusInternalServerError)
		return
	}
	if r.Method == http.MethodPost || r.Method == http.MethodPatch {
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: Content-Type %q", r.Method, r.URL.Path, ct)
		}
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("%s %s: body is not a JSON object: %v\n%s", r.Method, r.URL.Path, err, raw)
		}
		if s.check != nil {
			s.check(t, body)
		}
	}
	base := "http://" + r.Host
	for k, v := range s.header {
		w.Header().Set(k, strings.ReplaceAll(v, "{{base}}", base))
	}
	if s.body != "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	status := s.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, strings.ReplaceAll(s.body, "{{base}}", base))
}

func queryMatches(want, got url.Values) bool {
	for k, v := range want {
		if strings.Join(got[k], ",") != strings.Join(v, ",") {
			return false
		}
	}
	return true
}

// comment is one issue comment as the REST API returns it.
type comment struct {
	id   int64
	body string
}

func commentJSON(c comment) map[string]any {
	return map[string]any{
		"id":       c.id,
		"node_id":  fmt.Sprintf("IC_node%d", c.id),
		"body":     c.body,
		"html_url": fmt.Sprintf("https://github.com/o/r/pull/7#issuecomment-%d", c.id),
		"user":     map[string]any{"login": "github-actions[bot]"},
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// commentPage is GET /repos/o/r/issues/7/comments?page=N, with a Link
// header to the next page unless last.
func commentPage(t *testing.T, prefix string, page int, last bool, cs ...comment) *stub {
	t.Helper()
	items := make([]any, len(cs))
	for i, c := range cs {
		items[i] = commentJSON(c)
	}
	s := &stub{method: "GET", path: prefix + "/repos/o/r/issues/7/comments",
		query: url.Values{"per_page": {"100"}}, body: jsonOf(t, items)}
	if page > 1 {
		s.query.Set("page", fmt.Sprint(page))
	} else {
		s.query.Set("page", "") // the first request names no page
	}
	if !last {
		u := func(p int) string {
			return fmt.Sprintf("<{{base}}%s/repos/o/r/issues/7/comments?page=%d&per_page=100>", prefix, p)
		}
		s.header = map[string]string{"Link": u(page+1) + `; rel="next", ` + u(page+1) + `; rel="last"`}
	}
	return s
}

// wantBody checks a request's "body" field.
func wantBody(want string) func(*testing.T, map[string]any) {
	return func(t *testing.T, got map[string]any) {
		t.Helper()
		if got["body"] != want {
			t.Errorf("body %q, want %q", got["body"], want)
		}
	}
}

func createComment(t *testing.T, prefix, body string, id int64) *stub {
	return &stub{method: "POST", path: prefix + "/repos/o/r/issues/7/comments", status: http.StatusCreated,
		body: jsonOf(t, commentJSON(comment{id, body})), check: wantBody(body)}
}

func minimize(t *testing.T, path string, id int64) *stub {
	return &stub{method: "POST", path: path,
		body: `{"data":{"minimizeComment":{"minimizedComment":{"isMinimized":true}}}}`,
		check: func(t *testing.T, got map[string]any) {
			q, _ := got["query"].(string)
			for _, s := range []string{"mutation", "minimizeComment", "subjectId: $id", "classifier: OUTDATED"} {
				if !strings.Contains(q, s) {
					t.Errorf("mutation lacks %q:\n%s", s, q)
				}
			}
			vars, _ := got["variables"].(map[string]any)
			if want := fmt.Sprintf("IC_node%d", id); vars["id"] != want {
				t.Errorf("variables %v, want id %s", vars, want)
			}
		}}
}

// noWait is a retry policy that records its waits in *waits (when not
// nil) instead of sleeping.
func noWait(t *testing.T, waits *[]time.Duration) Retry {
	t.Helper()
	return Retry{Sleep: func(_ context.Context, d time.Duration) error {
		if waits != nil {
			*waits = append(*waits, d)
		}
		return nil
	}}
}
