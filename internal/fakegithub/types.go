package fakegithub

import (
	"net/http"
	"sync"
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

// response is what a handler decided to answer.
type response struct {
	status int
	header http.Header
	body   []byte // nil: no body (204)
}

// call is one REST request being routed and handled.
type call struct {
	r      *http.Request
	body   []byte
	perms  Permissions
	params map[string]string // the route's {wildcards}
	doc    string            // the route's documentation_url, for errors
}

// Permission scopes, spelled as in X-Accepted-GitHub-Permissions.
const (
	scopePullRequests = "pull_requests"
	scopeIssues       = "issues"
	scopeContents     = "contents"
)

// botLogin is the author of everything created through the API: the
// tokens stand for GITHUB_TOKEN.
const botLogin = "github-actions[bot]"

// epoch is the fake clock's start. Timestamps come from a clock that
// advances one second per change, so they are deterministic and strictly
// ordered, which sort=created and sort=updated rely on.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// state is the repository's content; Server.mu guards it.
type state struct {
	ticks int

	issues      map[int]*issueState // issues and pull requests, by number
	commentOnly map[int]bool        // numbers known only from AddComment: treated as pull requests

	comments      []*commentState // in creation order, deleted ones kept
	nextCommentID int64

	objects map[string]*object // Git objects by SHA (git.go)
	refs    map[string]string  // "refs/heads/x" -> commit SHA
}

type issueState struct {
	number                     int
	title, body, state, user   string
	labels                     []string
	created, updated, closedAt time.Time
	pr                         *PullRequest // nil for a plain issue
}

type commentState struct {
	Comment
	issue            int
	created, updated time.Time
	deleted          bool
}
