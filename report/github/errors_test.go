package github

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestErrors(t *testing.T) {
	list := "/repos/o/r/issues/7/comments"
	for _, tc := range []struct {
		name  string
		stubs []*stub
		is    error
		want  string
	}{
		{"401", []*stub{{method: "GET", path: list, status: http.StatusUnauthorized,
			body: `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`}},
			ErrTokenRefused, "list comments on o/r#7: the token was refused (check GITHUB_TOKEN)"},
		{"403 rate limited", []*stub{{method: "GET", path: list, status: http.StatusForbidden,
			header: map[string]string{"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1893456000"},
			body:   `{"message":"API rate limit exceeded for installation ID 1."}`}},
			nil, "list comments on o/r#7: rate limited until 2030-01-01T00:00:00Z"},
		{"429 rate limited", []*stub{{method: "GET", path: list, status: http.StatusTooManyRequests,
			header: map[string]string{"Retry-After": "120"}, body: `{"message":"slow down"}`}},
			nil, "list comments on o/r#7: rate limited, retry after 2m0s"},
		{"404", []*stub{{method: "GET", path: list, status: http.StatusNotFound,
			body: `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`}},
			ErrNotFound, "list comments on o/r#7: repository or pull request not found, or the token cannot see it"},
		{"403 read-only token", []*stub{
			commentPage(t, "", 1, true),
			{method: "POST", path: list, status: http.StatusForbidden, body: `{"message":"Resource not accessible by integration"}`},
		}, ErrForbidden, "create comment on o/r#7: the token lacks the permission pull-requests: write (GitHub: Resource not accessible by integration); grant it in the workflow's permissions block. A pull request from a fork always gets a read-only token"},
		{"403 names the permission GitHub asks for", []*stub{
			commentPage(t, "", 1, true),
			{method: "POST", path: list, status: http.StatusForbidden, header: map[string]string{"X-Accepted-GitHub-Permissions": "issues=write; pull_requests=write"},
				body: `{"message":"Resource not accessible by integration"}`},
		}, ErrForbidden, "create comment on o/r#7: the token lacks the permission issues: write or pull-requests: write (GitHub"},
		{"422 from the server", []*stub{
			commentPage(t, "", 1, true, comment{5, body + "old"}),
			{method: "PATCH", path: "/repos/o/r/issues/comments/5", status: http.StatusUnprocessableEntity,
				body: `{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"custom","field":"body","message":"Body is too long (maximum is 65536 characters)"}]}`},
		}, nil, "update comment 5 on o/r#7: GitHub answered 422: Validation Failed; Body is too long (maximum is 65536 characters)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.stubs...)
			_, err := newTestClient(t, f.url()).UpsertPRComment(context.Background(), "o", "r", 7, body, BehaviorUpdate)
			checkErr(t, err, tc.is, tc.want)
			if tc.name == "403 rate limited" {
				var rl *RateLimitError
				if !errors.As(err, &rl) || rl.Reset.Unix() != 1893456000 {
					t.Errorf("not a RateLimitError with the reset: %#v", err)
				}
			}
		})
	}
}

func TestGraphQLErrors(t *testing.T) {
	f := newFake(t,
		commentPage(t, "", 1, true, comment{5, body}),
		&stub{method: "POST", path: "/graphql",
			body: `{"data":{"minimizeComment":null},"errors":[{"type":"FORBIDDEN","message":"Resource not accessible by integration"}]}`},
	)
	_, err := newTestClient(t, f.url()).UpsertPRComment(context.Background(), "o", "r", 7, body, BehaviorHideAndNew)
	checkErr(t, err, nil, "hide comment 5 on o/r#7: the token lacks the permission pull-requests: write (GitHub: Resource not accessible by integration)")
}

func checkErr(t *testing.T, err, is error, want string) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v\nwant prefix %q", err, want)
	}
	if is != nil && !errors.Is(err, is) {
		t.Errorf("errors.Is(%v, %v) is false", err, is)
	}
	if err != nil && strings.Contains(err.Error(), testToken) {
		t.Errorf("the error shows the token: %v", err)
	}
}

// TestTokenStaysOnTheAPIHost: a redirect to another host does not carry
// the Authorization header.
func TestTokenStaysOnTheAPIHost(t *testing.T) {
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			t.Errorf("the redirect target got Authorization %q", a)
		}
		_, _ = w.Write([]byte(`[]`))
	}))
	defer elsewhere.Close()
	f := newFake(t,
		&stub{method: "GET", path: "/repos/o/r/issues/7/comments", status: http.StatusTemporaryRedirect,
			header: map[string]string{"Location": elsewhere.URL + "/repositories/1/issues/7/comments"}},
		createComment(t, "", body, 8),
	)
	got, err := newTestClient(t, f.url()).UpsertPRComment(context.Background(), "o", "r", 7, body, BehaviorUpdate)
	if err != nil || got.Action != Created {
		t.Errorf("%+v, %v", got, err)
	}
}
