package github

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// Errors a caller can test with errors.Is; the returned error also says
// what was being done.
var (
	ErrTokenRefused = errors.New("the token was refused (check GITHUB_TOKEN)")
	ErrNotFound     = errors.New("repository or pull request not found, or the token cannot see it")
	ErrForbidden    = errors.New("the token may not do this (a pull request from a fork gets a read-only token: comment from a workflow_run job, see docs/github-action.md)")
	ErrTooLong      = errors.New("body too long")
)

// RateLimitError is GitHub refusing requests until Reset.
type RateLimitError struct {
	Reset time.Time // zero when GitHub did not say
	Retry time.Duration
}

func (e *RateLimitError) Error() string {
	switch {
	case !e.Reset.IsZero():
		return "rate limited until " + e.Reset.UTC().Format(time.RFC3339)
	case e.Retry > 0:
		return "rate limited, retry after " + e.Retry.String()
	}
	return "rate limited"
}

// wrap names the operation and maps the API's refusals to a sentence with
// the fix. go-github's own messages carry the method and URL, never the
// Authorization header.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var rl *gh.RateLimitError
	if errors.As(err, &rl) {
		return fmt.Errorf("%s: %w", op, &RateLimitError{Reset: rl.Rate.Reset.Time})
	}
	var abuse *gh.AbuseRateLimitError
	if errors.As(err, &abuse) {
		e := &RateLimitError{}
		if abuse.RetryAfter != nil {
			e.Retry = *abuse.RetryAfter
		}
		return fmt.Errorf("%s: %w", op, e)
	}
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		switch er.Response.StatusCode {
		case http.StatusUnauthorized:
			return fmt.Errorf("%s: %w", op, ErrTokenRefused)
		case http.StatusNotFound:
			return fmt.Errorf("%s: %w", op, ErrNotFound)
		case http.StatusTooManyRequests:
			return fmt.Errorf("%s: %w", op, rateLimitFromHeaders(er.Response.Header))
		case http.StatusForbidden:
			if er.Message != "" {
				return fmt.Errorf("%s: %w (GitHub: %s)", op, ErrForbidden, er.Message)
			}
			return fmt.Errorf("%s: %w", op, ErrForbidden)
		}
		msg := er.Message
		for _, e := range er.Errors {
			if e.Message != "" {
				msg += "; " + e.Message
			}
		}
		return fmt.Errorf("%s: GitHub answered %d: %s", op, er.Response.StatusCode, msg)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// rateLimitFromHeaders reads X-RateLimit-Reset (epoch seconds) or
// Retry-After (seconds) of a 429.
func rateLimitFromHeaders(h http.Header) *RateLimitError {
	e := &RateLimitError{}
	if s, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil && h.Get("X-RateLimit-Remaining") == "0" {
		e.Reset = time.Unix(s, 0)
	} else if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil {
		e.Retry = time.Duration(s) * time.Second
	}
	return e
}
