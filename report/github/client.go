// Package github posts capreport's reports where people read them: one
// sticky pull-request comment found by its hidden marker, and one living
// issue for the scheduled repository-wide report.
//
// The client speaks to api.github.com or a GitHub Enterprise Server API
// (https://HOST/api/v3/, GraphQL at https://HOST/api/graphql). The token is
// sent only to the API's host and never appears in an error.
package github

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
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

// Client posts comments and issues through the GitHub API.
type Client struct {
	gh         *gh.Client
	graphqlURL string
}

// New builds a client. baseURL empty means api.github.com; otherwise it is
// the REST API root, e.g. https://ghe.example.com/api/v3/ (GITHUB_API_URL
// in Actions). httpClient nil means a client with a one-minute timeout.
func New(token, baseURL string, httpClient *http.Client) (*Client, error) {
	if token == "" {
		return nil, errors.New("github: no token")
	}
	if strings.IndexFunc(token, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		// Never echo it: it is a secret even when malformed.
		return nil, errors.New("github: the token contains whitespace or control characters")
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	base, err := url.Parse(baseURL)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("github: API URL %q is not an http(s) URL such as https://ghe.example.com/api/v3/", baseURL)
	}
	if base.User != nil {
		return nil, errors.New("github: the API URL must not carry credentials")
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	if httpClient == nil {
		httpClient = &http.Client{Timeout: time.Minute}
	}
	hc := *httpClient
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = &authTransport{token: token, host: base.Host, next: next}

	c := gh.NewClient(&hc)
	c.BaseURL = base
	c.UserAgent = "capreport"
	return &Client{gh: c, graphqlURL: graphqlURL(base)}, nil
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

// authTransport adds the token to requests for the API's host only: a
// redirect elsewhere does not carry it.
type authTransport struct {
	token string
	host  string
	next  http.RoundTripper
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == t.host {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	return t.next.RoundTrip(req)
}
