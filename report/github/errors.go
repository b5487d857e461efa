package github

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// Errors a caller can test with errors.Is; the returned error also says
// what was being done.
var (
	ErrTokenRefused = errors.New("the token was refused (check GITHUB_TOKEN)")
	ErrNotFound     = errors.New("repository or pull request not found, or the token cannot see it")
	ErrForbidden    = errors.New("the token may not do this")
	ErrTooLong      = errors.New("body too long")
)

// The permissions each kind of write needs, in the spelling of a
// workflow's `permissions:` block.
const (
	needPullRequests = "pull-requests: write"
	needIssues       = "issues: write"
	needContents     = "contents: write"
)

// PermissionError is a 403 that is not a rate limit: the token lacks a
// permission. errors.Is(err, ErrForbidden) holds.
type PermissionError struct {
	// Need is the missing permission, e.g. "pull-requests: write": from
	// GitHub's X-Accepted-GitHub-Permissions header when it sends one,
	// else what the operation is known to need.
	Need string
	// Message is GitHub's own message, e.g. "Resource not accessible by
	// integration".
	Message string
}

func (e *PermissionError) Error() string {
	s := "the token lacks the permission " + e.Need
	if e.Message != "" {
		s += " (GitHub: " + e.Message + ")"
	}
	s += "; grant it in the workflow's permissions block"
	if strings.HasPrefix(e.Need, "pull-requests") || strings.HasPrefix(e.Need, "issues") {
		s += ". A pull request from a fork always gets a read-only token: comment from a workflow_run job instead (docs/github-action.md)"
	}
	return s
}

// Is makes errors.Is(err, ErrForbidden) hold.
func (e *PermissionError) Is(target error) bool { return target == ErrForbidden }

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
// the fix; need is the permission the operation requires. go-github's own
// messages carry the method and URL, never the Authorization header.
func wrap(op, need string, err error) error {
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
			if namesRateLimit(er.Message) {
				// A secondary rate limit go-github did not recognise.
				return fmt.Errorf("%s: %w", op, rateLimitFromHeaders(er.Response.Header))
			}
			if n := acceptedPermissions(er.Response.Header.Get("X-Accepted-GitHub-Permissions")); n != "" {
				need = n
			}
			return fmt.Errorf("%s: %w", op, &PermissionError{Need: need, Message: er.Message})
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

// acceptedPermissions turns GitHub's X-Accepted-GitHub-Permissions header,
// e.g. "pull_requests=write; issues=write" (alternatives separated by ";",
// permissions of one alternative by ","), into workflow spelling:
// "pull-requests: write or issues: write".
func acceptedPermissions(h string) string {
	var alts []string
	for _, alt := range strings.Split(h, ";") {
		var perms []string
		for _, p := range strings.Split(alt, ",") {
			name, level, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || name == "" || level == "" {
				continue
			}
			perms = append(perms, strings.ReplaceAll(name, "_", "-")+": "+level)
		}
		if len(perms) > 0 {
			alts = append(alts, strings.Join(perms, " and "))
		}
	}
	return strings.Join(alts, " or ")
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
