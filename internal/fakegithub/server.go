// Package fakegithub is a stateful, in-memory stand-in for the parts of the
// GitHub REST and GraphQL APIs that capreport talks to: issue and pull
// request comments, issues, pull requests, the Git Data API (blobs, trees,
// commits, refs) and the minimizeComment mutation.
//
// It is meant for tests of other packages. Unlike a table of canned
// responses it keeps state, so a test can drive a client through a whole
// scenario (list, edit, delete, list again) and then inspect what is left.
// It answers the way GitHub does where a client can tell the difference:
// status codes, error bodies, Link pagination, rate-limit headers and the
// X-Accepted-GitHub-Permissions header of a refused write, so that
// go-github's client works against it unchanged:
//
//	s := fakegithub.New(t, fakegithub.Config{
//		Owner: "o", Repo: "r",
//		Tokens:       map[string]fakegithub.Permissions{"tok": {PullRequests: "write"}},
//		PullRequests: []fakegithub.PullRequest{{Number: 7}},
//	})
//	c := github.NewClient(nil).WithAuthToken("tok")
//	c.BaseURL, _ = url.Parse(s.URL)
//	// ... exercise the code under test, then look at s.Comments(7),
//	// s.Writes(), s.File("branch", "path") ...
//
// Wording of error messages follows GitHub where it is known; where it is
// not (some Git Data validation errors), the status is still GitHub's.
package fakegithub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// New starts a fake serving cfg's repository; it is closed when the test
// ends.
func New(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.Owner == "" || cfg.Repo == "" {
		t.Fatalf("fakegithub: Config needs Owner and Repo")
	}
	if cfg.MaxBodyChars <= 0 {
		cfg.MaxBodyChars = 65536
	}
	s := &Server{cfg: cfg, used: map[string]int{}, restPrefix: "/", graphqlPath: "/graphql"}
	if cfg.Enterprise {
		s.restPrefix, s.graphqlPath = "/api/v3/", "/api/graphql"
	}
	hs := httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	t.Cleanup(hs.Close)
	s.ServerURL = hs.URL + "/"
	s.URL = hs.URL + s.restPrefix
	s.GraphQLURL = hs.URL + s.graphqlPath
	if err := s.st.init(s); err != nil {
		t.Fatalf("fakegithub: %v", err)
	}
	return s
}

// Requests returns every request served so far, in order, including those
// refused or failed by FailNext.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = r.clone()
	}
	return out
}

// clone copies what a caller could modify.
func (r Request) clone() Request {
	r.Header = r.Header.Clone()
	r.Body = bytes.Clone(r.Body)
	return r
}

// Writes returns the requests that could change state: every method but
// GET and HEAD, GraphQL POSTs included, whether or not they succeeded.
func (s *Server) Writes() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			out = append(out, r.clone())
		}
	}
	return out
}

// FailNext makes the next request whose method is method ("" for any) and
// whose URL path ends with pathSuffix fail once with status, header and
// body, without touching state. It is checked before authentication, like
// a proxy or rate limiter in front of GitHub. The usual headers (request
// id, rate limits) are added unless header sets them, so a test faking a
// primary rate limit must set X-RateLimit-Remaining "0" and its own
// X-RateLimit-Reset. Several injections wait in the order given.
func (s *Server) FailNext(method, pathSuffix string, status int, header http.Header, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, failure{method: method, suffix: pathSuffix, status: status, header: header.Clone(), body: body})
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)

	s.mu.Lock()
	resp, resource := s.respond(r, body)
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body, Status: resp.status,
	})
	s.used[resource]++
	h := s.commonHeaders(resource, len(s.requests))
	s.mu.Unlock()

	for k, v := range resp.header {
		h[k] = v
	}
	if resp.body != nil && h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json; charset=utf-8")
	}
	for k, v := range h {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.status)
	if resp.body != nil {
		_, _ = w.Write(resp.body)
	}
}

// commonHeaders are the headers GitHub puts on every response. go-github
// keeps the rate-limit ones per client and refuses to send requests while
// Remaining is 0 before Reset, so Remaining never reaches 0 here.
func (s *Server) commonHeaders(resource string, seq int) http.Header {
	const limit = 5000
	used := s.used[resource]
	h := http.Header{}
	h.Set("X-GitHub-Request-Id", fmt.Sprintf("FAKE:%08X", seq))
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(limit-used, 1)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Resource", resource)
	return h
}

// respond decides the answer to one request; s.mu is held. It also names
// the rate-limit resource the request counts against.
func (s *Server) respond(r *http.Request, body []byte) (response, string) {
	resource := "core"
	if r.URL.Path == s.graphqlPath {
		resource = "graphql"
	}
	if f, ok := s.takeFailure(r); ok {
		return f, resource
	}

	perms, ok := s.authenticate(r)
	if !ok {
		doc := "https://docs.github.com/rest"
		if resource == "graphql" {
			doc = "https://docs.github.com/graphql"
		}
		return errorJSON(http.StatusUnauthorized, "Bad credentials", doc), resource
	}

	if r.Method == http.MethodPost || r.Method == http.MethodPatch || r.Method == http.MethodPut {
		if !isJSON(r.Header.Get("Content-Type")) || !json.Valid(body) {
			return errorJSON(http.StatusBadRequest, "Problems parsing JSON", "https://docs.github.com/rest"), resource
		}
	}

	if resource == "graphql" {
		if r.Method != http.MethodPost {
			return notFound("https://docs.github.com/graphql"), resource
		}
		return s.graphql(perms, body), resource
	}

	rest, ok := strings.CutPrefix(r.URL.Path, s.restPrefix)
	if !ok {
		return notFound("https://docs.github.com/rest"), resource
	}
	if rest == "user" && r.Method == http.MethodGet {
		return s.getUser(perms), resource
	}
	return s.route(&call{r: r, body: body, perms: perms}, rest), resource
}

// takeFailure consumes the first FailNext injection matching r.
func (s *Server) takeFailure(r *http.Request) (response, bool) {
	for i, f := range s.failures {
		if (f.method == "" || strings.EqualFold(f.method, r.Method)) && strings.HasSuffix(r.URL.Path, f.suffix) {
			s.failures = append(s.failures[:i], s.failures[i+1:]...)
			resp := response{status: f.status, header: f.header}
			if f.body != "" {
				resp.body = []byte(f.body)
			}
			return resp, true
		}
	}
	return response{}, false
}

// authenticate accepts "Bearer TOKEN" and the older "token TOKEN".
func (s *Server) authenticate(r *http.Request) (Permissions, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !(strings.EqualFold(scheme, "bearer") || strings.EqualFold(scheme, "token")) {
		return Permissions{}, false
	}
	p, ok := s.cfg.Tokens[strings.TrimSpace(tok)]
	return p, ok
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// route is one REST endpoint. pattern is relative to repos/{owner}/{repo}/;
// "{name}" matches one segment and a final "{name...}" the rest.
type route struct {
	method, pattern string
	handle          func(*call) response
	doc             string
}

// routes lists the endpoints; the first whose method and pattern match
// wins, so literal segments come before wildcards at the same position.
func (s *Server) routes() []route {
	const (
		comments = "https://docs.github.com/rest/issues/comments#"
		issues   = "https://docs.github.com/rest/issues/issues#"
		pulls    = "https://docs.github.com/rest/pulls/pulls#"
		git      = "https://docs.github.com/rest/git/"
	)
	return []route{
		{"GET", "issues/comments/{id}", s.getComment, comments + "get-an-issue-comment"},
		{"PATCH", "issues/comments/{id}", s.editComment, comments + "update-an-issue-comment"},
		{"DELETE", "issues/comments/{id}", s.deleteComment, comments + "delete-an-issue-comment"},
		{"GET", "issues/{n}/comments", s.listComments, comments + "list-issue-comments"},
		{"POST", "issues/{n}/comments", s.createComment, comments + "create-an-issue-comment"},
		{"GET", "issues", s.listIssues, issues + "list-repository-issues"},
		{"POST", "issues", s.createIssue, issues + "create-an-issue"},
		{"GET", "issues/{n}", s.getIssue, issues + "get-an-issue"},
		{"PATCH", "issues/{n}", s.editIssue, issues + "update-an-issue"},
		{"GET", "pulls", s.listPulls, pulls + "list-pull-requests"},
		{"GET", "pulls/{n}", s.getPull, pulls + "get-a-pull-request"},
		{"POST", "git/blobs", s.createBlob, git + "blobs#create-a-blob"},
		{"GET", "git/blobs/{sha}", s.getBlob, git + "blobs#get-a-blob"},
		{"POST", "git/trees", s.createTree, git + "trees#create-a-tree"},
		{"GET", "git/trees/{sha}", s.getTree, git + "trees#get-a-tree"},
		{"POST", "git/commits", s.createCommit, git + "commits#create-a-commit"},
		{"GET", "git/commits/{sha}", s.getCommit, git + "commits#get-a-commit-object"},
		{"GET", "git/ref/{ref...}", s.getRef, git + "refs#get-a-reference"},
		{"GET", "git/refs/{ref...}", s.getRef, git + "refs#get-a-reference"},
		{"POST", "git/refs", s.createRef, git + "refs#create-a-reference"},
		{"PATCH", "git/refs/{ref...}", s.updateRef, git + "refs#update-a-reference"},
		{"DELETE", "git/refs/{ref...}", s.deleteRef, git + "refs#delete-a-reference"},
	}
}

// route dispatches a path relative to the REST root. Anything outside the
// configured repository is 404, as GitHub answers for a repository the
// token cannot see.
func (s *Server) route(c *call, path string) response {
	seg := strings.Split(path, "/")
	if len(seg) < 4 || seg[0] != "repos" ||
		!strings.EqualFold(seg[1], s.cfg.Owner) || !strings.EqualFold(seg[2], s.cfg.Repo) {
		return notFound("https://docs.github.com/rest")
	}
	seg = seg[3:]
	for _, rt := range s.routes() {
		if rt.method != c.r.Method {
			continue
		}
		if params, ok := match(strings.Split(rt.pattern, "/"), seg); ok {
			c.params, c.doc = params, rt.doc
			return rt.handle(c)
		}
	}
	return notFound("https://docs.github.com/rest")
}

// match matches path segments against a pattern's.
func match(pattern, seg []string) (map[string]string, bool) {
	params := map[string]string{}
	for i, p := range pattern {
		if name, ok := strings.CutPrefix(p, "{"); ok {
			name = strings.TrimSuffix(name, "}")
			if rest, ok := strings.CutSuffix(name, "..."); ok {
				if i >= len(seg) || strings.Join(seg[i:], "") == "" {
					return nil, false
				}
				params[rest] = strings.Join(seg[i:], "/")
				return params, true
			}
			if i >= len(seg) || seg[i] == "" {
				return nil, false
			}
			params[name] = seg[i]
			continue
		}
		if i >= len(seg) || seg[i] != p {
			return nil, false
		}
	}
	return params, len(seg) == len(pattern)
}

// getUser answers GET /user: the token's user, or for an installation
// token GitHub's 403.
func (s *Server) getUser(p Permissions) response {
	const doc = "https://docs.github.com/rest/users/users#get-the-authenticated-user"
	if p.Login == "" {
		return errorJSON(http.StatusForbidden, "Resource not accessible by integration", doc)
	}
	return jsonResponse(http.StatusOK, s.userJSON(p.Login))
}
