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
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Config describes the one repository the server holds and who may use it.
type Config struct {
	Owner, Repo string // the one repository served, e.g. "o", "r"

	// Enterprise selects the GitHub Enterprise Server layout: REST under
	// /api/v3/ and GraphQL at /api/graphql. Otherwise REST is at / and
	// GraphQL at /graphql, as on api.github.com.
	Enterprise bool

	// Tokens are the accepted tokens and what each may do. A request with
	// any other token, or none, gets 401 Bad credentials; with no Tokens
	// at all, every request does.
	Tokens map[string]Permissions

	// PullRequests exist from the start. They share the issue number space
	// and appear in the issues listing, as on GitHub.
	PullRequests []PullRequest

	// MaxBodyChars is the longest comment or issue body accepted, in
	// characters (runes); 0 means GitHub's 65536.
	MaxBodyChars int
}

// Permissions are a token's fine-grained repository permissions, each "",
// "read" or "write" (write implies read), as a GitHub App installation
// token or GITHUB_TOKEN carries them.
//
// Login is whom the token acts as. Empty is an installation token
// (GITHUB_TOKEN or a GitHub App's): it writes as App (default
// github-actions[bot]) and GET /user answers 403 "Resource not accessible
// by integration", as GitHub does. Set, it is a user's token: it writes as
// Login and GET /user returns that user.
type Permissions struct {
	PullRequests, Issues, Contents string
	Login, App                     string
}

// author is the login the token's writes carry.
func (p Permissions) author() string {
	if p.Login != "" {
		return p.Login
	}
	return orDefault(p.App, botLogin)
}

// PullRequest is a pull request that exists when the server starts.
type PullRequest struct {
	Number              int
	HeadOwner, HeadRepo string // default: Config.Owner, Config.Repo (not a fork)
	HeadRef, HeadSHA    string // default: "pr-N" and a made-up SHA
	BaseRef             string // default "main"
	State               string // "open" (default), "closed" or "merged"
}

// Request is one request as the server received it, with the status it got.
type Request struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   []byte
	Status                 int
}

// Comment is an issue or pull-request comment as the server holds it.
type Comment struct {
	ID              int64
	NodeID, Body    string
	User            string
	Minimized       bool
	MinimizedReason string // e.g. "outdated", as GraphQL reports it
}

// Issue is a plain issue (not a pull request) as the server holds it.
type Issue struct {
	Number      int
	Title, Body string
	State       string // "open" or "closed"
	Labels      []string
}

// Server is a running fake. Its exported fields are fixed at New; its
// methods may be called from any goroutine.
type Server struct {
	URL        string // REST API root with a trailing slash, e.g. http://127.0.0.1:1234/ or .../api/v3/
	GraphQLURL string // e.g. http://127.0.0.1:1234/graphql or .../api/graphql
	ServerURL  string // the web root html_url values start with, e.g. http://127.0.0.1:1234/

	cfg         Config
	restPrefix  string // path of URL: "/" or "/api/v3/"
	graphqlPath string // path of GraphQLURL

	// mu guards everything below, and is held for the whole of each
	// request: the fake serves one request at a time, so the order of
	// Requests is the order in which state changed.
	mu       sync.Mutex
	requests []Request
	failures []failure
	used     map[string]int // requests per rate-limit resource ("core", "graphql")
	st       state
}

// failure is one FailNext injection, waiting for its request.
type failure struct {
	method, suffix string
	status         int
	header         http.Header
	body           string
}

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

// response is what a handler decided to answer.
type response struct {
	status int
	header http.Header
	body   []byte // nil: no body (204)
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

// call is one REST request being routed and handled.
type call struct {
	r      *http.Request
	body   []byte
	perms  Permissions
	params map[string]string // the route's {wildcards}
	doc    string            // the route's documentation_url, for errors
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

// intParam is a positive integer path parameter such as an issue number.
func (c *call) intParam(name string) (int64, bool) {
	n, err := strconv.ParseInt(c.params[name], 10, 64)
	return n, err == nil && n > 0
}

// Permission scopes, spelled as in X-Accepted-GitHub-Permissions.
const (
	scopePullRequests = "pull_requests"
	scopeIssues       = "issues"
	scopeContents     = "contents"
)

func (p Permissions) level(scope string) int {
	v := map[string]string{scopePullRequests: p.PullRequests, scopeIssues: p.Issues, scopeContents: p.Contents}[scope]
	switch v {
	case "write":
		return 2
	case "read":
		return 1
	}
	return 0
}

// require answers 403 unless the token has access ("read" or "write") in
// one of the scopes. The header lists each accepted alternative, separated
// by "; ", as GitHub does.
func (c *call) require(access string, scopes ...string) (response, bool) {
	need := 1
	if access == "write" {
		need = 2
	}
	alts := make([]string, len(scopes))
	for i, sc := range scopes {
		if c.perms.level(sc) >= need {
			return response{}, true
		}
		alts[i] = sc + "=" + access
	}
	resp := errorJSON(http.StatusForbidden, "Resource not accessible by integration", c.doc)
	resp.header = http.Header{"X-Accepted-Github-Permissions": {strings.Join(alts, "; ")}}
	return resp, false
}

// decode reads the JSON request body into v. A value of the wrong JSON
// type is 422 with GitHub's wording; malformed JSON was refused earlier.
func (c *call) decode(v any) (response, bool) {
	err := json.Unmarshal(c.body, v)
	if err == nil {
		return response{}, true
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return c.unprocessable("Invalid request.\n\nThe request body must be a JSON object."), false
		}
		return c.unprocessable(fmt.Sprintf("Invalid request.\n\nFor 'properties/%s', a JSON %s is not %s.", field, te.Value, jsonKind(te.Type.Kind().String()))), false
	}
	return errorJSON(http.StatusBadRequest, "Problems parsing JSON", c.doc), false
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return "a number"
}

func (c *call) notFound() response { return notFound(c.doc) }

// unprocessable is a 422 with only a message, as the Git Data API answers.
func (c *call) unprocessable(msg string) response {
	return errorJSON(http.StatusUnprocessableEntity, msg, c.doc)
}

// validation is GitHub's 422 "Validation Failed" with one error entry.
func (c *call) validation(resource, field, code, msg string) response {
	e := map[string]string{"resource": resource, "field": field, "code": code}
	if msg != "" {
		e["message"] = msg
	}
	return jsonResponse(http.StatusUnprocessableEntity, map[string]any{
		"message":           "Validation Failed",
		"errors":            []any{e},
		"documentation_url": c.doc,
	})
}

func notFound(doc string) response {
	return errorJSON(http.StatusNotFound, "Not Found", doc)
}

func errorJSON(status int, msg, doc string) response {
	return jsonResponse(status, map[string]string{"message": msg, "documentation_url": doc})
}

func jsonResponse(status int, v any) response {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // GitHub sends "<" and ">" in bodies as they are
	if err := enc.Encode(v); err != nil {
		panic("fakegithub: " + err.Error()) // only our own maps and slices are encoded
	}
	return response{status: status, body: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))}
}

// page is the pagination of a listing: GitHub's per_page (default 30, at
// most 100) and page (from 1).
type page struct{ number, size int }

func (c *call) page() page {
	q := c.r.URL.Query()
	p := page{number: 1, size: 30}
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		p.size = min(n, 100)
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 {
		p.number = n
	}
	return p
}

// paginate answers one page of items with GitHub's Link header: prev,
// next, last and first, each the request's own URL with page replaced;
// only the relations that apply, and no header when everything fits on
// one page.
func paginate[T any](c *call, s *Server, items []T) response {
	p := c.page()
	last := max(1, (len(items)+p.size-1)/p.size)
	from := min((p.number-1)*p.size, len(items))
	to := min(from+p.size, len(items))
	out := make([]any, 0, to-from)
	for _, it := range items[from:to] {
		out = append(out, it)
	}
	resp := jsonResponse(http.StatusOK, out)

	link := func(n int, rel string) string {
		q := c.r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		u := url.URL{Path: c.r.URL.Path, RawQuery: q.Encode()}
		return fmt.Sprintf("<%s%s>; rel=%q", strings.TrimSuffix(s.ServerURL, "/"), u.String(), rel)
	}
	var links []string
	if p.number > 1 {
		links = append(links, link(p.number-1, "prev"))
	}
	if p.number < last {
		links = append(links, link(p.number+1, "next"), link(last, "last"))
	}
	if p.number > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		resp.header = http.Header{"Link": {strings.Join(links, ", ")}}
	}
	return resp
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
