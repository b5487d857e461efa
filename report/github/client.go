// Package github posts capreport's reports where people read them: one
// sticky pull-request comment found by its hidden marker, one living issue
// for the scheduled repository-wide report, and (for trusted repositories)
// plot images committed to a dedicated branch.
//
// The client speaks to api.github.com or a GitHub Enterprise Server API
// (https://HOST/api/v3/, GraphQL at https://HOST/api/graphql). The token is
// sent only in the Authorization header, only to the API's host, and never
// appears in an error.
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	gh "github.com/google/go-github/v62/github"
)

// DefaultBaseURL is the REST API root of github.com.
const DefaultBaseURL = "https://api.github.com/"

// perPage is the page size of every listing (GitHub's maximum).
const perPage = 100

// maxPages bounds a listing: a server that keeps answering rel="next"
// cannot loop the client forever.
const maxPages = 500

// Config says how to reach GitHub.
type Config struct {
	// Token authenticates every request (GITHUB_TOKEN in Actions).
	Token string
	// BaseURL is the REST API root; empty means api.github.com, otherwise
	// e.g. https://ghe.example.com/api/v3/ (GITHUB_API_URL in Actions).
	BaseURL string
	// GraphQLURL is the GraphQL endpoint; empty derives it from BaseURL
	// (GITHUB_GRAPHQL_URL in Actions).
	GraphQLURL string
	// HTTPClient nil means a client with a one-minute timeout per request.
	HTTPClient *http.Client
	// Retry tunes retries of server errors and rate limits; the zero value
	// means defaultRetry.
	Retry Retry
	// Author is the login whose marked comments are capreport's own, e.g.
	// a GitHub App's "my-app[bot]". Empty asks GET /user (a user's token);
	// when GitHub refuses it, as it does an installation token, it is
	// ActionsBot, the login GITHUB_TOKEN writes as.
	Author string
}

// ActionsBot is the login of comments written with GITHUB_TOKEN.
const ActionsBot = "github-actions[bot]"

// Client posts comments, issues and images through the GitHub API.
type Client struct {
	gh         *gh.Client
	graphqlURL string
	retry      Retry

	mu     sync.Mutex
	author string // Config.Author, or the login self found
}

// New builds a client.
func New(cfg Config) (*Client, error) {
	if cfg.Token == "" {
		return nil, errors.New("github: no token")
	}
	if strings.IndexFunc(cfg.Token, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		// Never echo it: it is a secret even when malformed.
		return nil, errors.New("github: the token contains whitespace or control characters")
	}
	base, err := apiURL(cfg.BaseURL, DefaultBaseURL, "API URL", "https://ghe.example.com/api/v3/")
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	gql := graphqlURL(base)
	if cfg.GraphQLURL != "" {
		u, err := apiURL(cfg.GraphQLURL, "", "GraphQL URL", "https://ghe.example.com/api/graphql")
		if err != nil {
			return nil, err
		}
		gql = u.String()
	}
	hosts := map[string]bool{base.Host: true}
	if u, err := url.Parse(gql); err == nil {
		hosts[u.Host] = true
	}

	hc := http.Client{Timeout: time.Minute}
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	policy := cfg.Retry.withDefaults()
	hc.Transport = &authTransport{token: cfg.Token, hosts: hosts,
		next: &retryTransport{next: next, policy: policy}}

	c := gh.NewClient(&hc)
	c.BaseURL = base
	c.UploadURL = base
	c.UserAgent = "capreport"
	return &Client{gh: c, graphqlURL: gql, retry: policy, author: cfg.Author}, nil
}

// self is the login the token writes as: Config.Author, else GET /user's,
// else (GitHub refuses /user to an installation token with 403) ActionsBot.
// Only comments by self are ever edited, hidden or deleted.
func (c *Client) self(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.author != "" {
		return c.author, nil
	}
	u, resp, err := c.gh.Users.Get(ctx, "")
	switch {
	case err == nil && u.GetLogin() != "":
		c.author = u.GetLogin()
	case resp != nil && resp.StatusCode == http.StatusForbidden:
		c.author = ActionsBot
	case err == nil:
		return "", errors.New("GET /user: the answer names no login; set the comment author explicitly")
	default:
		return "", wrap("find the token's own login (GET /user)", "none", err)
	}
	return c.author, nil
}

// apiURL parses an endpoint: http(s), a host, no credentials.
func apiURL(s, def, what, example string) (*url.URL, error) {
	if s == "" {
		s = def
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("github: %s %q is not an http(s) URL such as %s", what, s, example)
	}
	if u.User != nil {
		return nil, fmt.Errorf("github: the %s must not carry credentials", what)
	}
	return u, nil
}

// graphqlURL is https://api.github.com/graphql for github.com and
// https://HOST/api/graphql for GitHub Enterprise Server (REST at /api/v3/).
func graphqlURL(base *url.URL) string {
	u := *base
	if p, ok := strings.CutSuffix(u.Path, "/v3/"); ok {
		u.Path = p + "/graphql"
	} else {
		u.Path += "graphql"
	}
	return u.String()
}

// ServerURL is the web root matching a REST API root, for links a reader
// clicks: https://github.com/ for api.github.com, https://HOST/ for GitHub
// Enterprise Server's https://HOST/api/v3/.
func ServerURL(apiBase string) string {
	if apiBase == "" {
		apiBase = DefaultBaseURL
	}
	u, err := url.Parse(apiBase)
	if err != nil || u.Host == "" {
		return "https://github.com/"
	}
	if u.Host == "api.github.com" {
		return "https://github.com/"
	}
	p := strings.TrimSuffix(u.Path, "/")
	p = strings.TrimSuffix(p, "/api/v3")
	u.Path = strings.TrimSuffix(p, "/") + "/"
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// authTransport adds the token to requests for the API's hosts only: a
// redirect elsewhere (an image host, a CDN) does not carry it.
type authTransport struct {
	token string
	hosts map[string]bool
	next  http.RoundTripper
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.hosts[req.URL.Host] {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	return t.next.RoundTrip(req)
}
