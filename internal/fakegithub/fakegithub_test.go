package fakegithub_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	gh "github.com/google/go-github/v62/github"

	"github.com/capreport/capreport/internal/fakegithub"
)

const (
	writeToken = "ghs_write"
	readToken  = "ghs_read"
)

var (
	writeAll = fakegithub.Permissions{PullRequests: "write", Issues: "write", Contents: "write"}
	readAll  = fakegithub.Permissions{PullRequests: "read", Issues: "read", Contents: "read"}
)

// newServer starts a fake of o/r with pull request #7 and a write and a
// read-only token.
func newServer(t *testing.T, mod func(*fakegithub.Config)) *fakegithub.Server {
	t.Helper()
	cfg := fakegithub.Config{
		Owner: "o", Repo: "r",
		Tokens:       map[string]fakegithub.Permissions{writeToken: writeAll, readToken: readAll},
		PullRequests: []fakegithub.PullRequest{{Number: 7, HeadRef: "feature", HeadSHA: strings.Repeat("a", 40)}},
	}
	if mod != nil {
		mod(&cfg)
	}
	return fakegithub.New(t, cfg)
}

// client is go-github's own client, unchanged, pointed at the fake.
func client(t *testing.T, s *fakegithub.Server, token string) *gh.Client {
	t.Helper()
	c := gh.NewClient(nil).WithAuthToken(token)
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c
}

// status is the HTTP status of a go-github error, 0 if it has none.
func status(err error) int {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

func TestCommentPaginationFollowsLink(t *testing.T) {
	s := newServer(t, nil)
	for i := range 250 {
		s.AddComment(7, fmt.Sprintf("comment %d", i), "")
	}
	c := client(t, s, readToken)
	ctx := context.Background()

	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	var bodies []string
	var pages []*gh.Response
	for {
		page, resp, err := c.Issues.ListComments(ctx, "o", "r", 7, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, cm := range page {
			bodies = append(bodies, cm.GetBody())
		}
		pages = append(pages, resp)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(pages) != 3 || len(bodies) != 250 {
		t.Fatalf("%d pages, %d comments; want 3 and 250", len(pages), len(bodies))
	}
	for i, b := range bodies {
		if want := fmt.Sprintf("comment %d", i); b != want {
			t.Fatalf("comment %d is %q: not oldest first", i, b)
		}
	}

	type rels struct{ next, prev, first, last int }
	want := []rels{{2, 0, 0, 3}, {3, 1, 1, 3}, {0, 2, 1, 0}}
	for i, r := range pages {
		if got := (rels{r.NextPage, r.PrevPage, r.FirstPage, r.LastPage}); got != want[i] {
			t.Errorf("page %d: links %+v, want %+v", i+1, got, want[i])
		}
	}
	// GitHub's own formatting: absolute URLs, the request's query with the
	// page replaced, in the order prev, next, last, first.
	u := func(p int) string {
		return fmt.Sprintf("<%srepos/o/r/issues/7/comments?page=%d&per_page=100>", s.URL, p)
	}
	wantLink := u(1) + `; rel="prev", ` + u(3) + `; rel="next", ` + u(3) + `; rel="last", ` + u(1) + `; rel="first"`
	if got := pages[1].Header.Get("Link"); got != wantLink {
		t.Errorf("Link\n got %s\nwant %s", got, wantLink)
	}
	if got := pages[0].Header.Get("Link"); got != u(2)+`; rel="next", `+u(3)+`; rel="last"` {
		t.Errorf("first page Link %s", got)
	}

	// One page needs no Link at all; a missing issue is 404.
	_, resp, err := c.Issues.ListComments(ctx, "o", "r", 7, &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100, Page: 3}})
	if err != nil || resp.Header.Get("Link") == "" {
		t.Errorf("page 3: %v, Link %q", err, resp.Header.Get("Link"))
	}
	if _, _, err := c.Issues.ListComments(ctx, "o", "r", 8, nil); status(err) != http.StatusNotFound {
		t.Errorf("comments of #8: %v, want 404", err)
	}
}

func TestDefaultPageSize(t *testing.T) {
	s := newServer(t, nil)
	for range 31 {
		s.AddComment(7, "x", "")
	}
	page, resp, err := client(t, s, readToken).Issues.ListComments(context.Background(), "o", "r", 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 30 || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Errorf("%d comments, next %d, last %d; want 30, 2, 2", len(page), resp.NextPage, resp.LastPage)
	}
}

func TestCommentCreateEditDelete(t *testing.T) {
	s := newServer(t, nil)
	issue := s.AddIssue("report", "<!-- m -->")
	c := client(t, s, writeToken)
	ctx := context.Background()

	created, resp, err := c.Issues.CreateComment(ctx, "o", "r", 7, &gh.IssueComment{Body: gh.String("<!-- m -->\nfirst")})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetID()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("status %d, want 201", resp.StatusCode)
	}
	if want := fmt.Sprintf("%so/r/pull/7#issuecomment-%d", s.ServerURL, id); created.GetHTMLURL() != want {
		t.Errorf("html_url %s, want %s", created.GetHTMLURL(), want)
	}
	if created.GetNodeID() != fmt.Sprintf("IC_kwDO%d", id) || created.GetUser().GetLogin() != "github-actions[bot]" ||
		created.CreatedAt == nil || created.UpdatedAt == nil {
		t.Errorf("comment %+v", created)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	for _, h := range []string{"X-GitHub-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Used", "X-RateLimit-Resource"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("no %s header", h)
		}
	}
	if resp.Rate.Remaining <= 0 || resp.Rate.Limit != 5000 {
		t.Errorf("rate %+v", resp.Rate)
	}

	edited, resp, err := c.Issues.EditComment(ctx, "o", "r", id, &gh.IssueComment{Body: gh.String("<!-- m -->\nsecond")})
	if err != nil || resp.StatusCode != http.StatusOK || edited.GetBody() != "<!-- m -->\nsecond" {
		t.Fatalf("edit: %v, %+v", err, edited)
	}
	if !edited.GetUpdatedAt().After(edited.GetCreatedAt().Time) {
		t.Errorf("updated_at %v not after created_at %v", edited.GetUpdatedAt(), edited.GetCreatedAt())
	}
	got, _, err := c.Issues.GetComment(ctx, "o", "r", id)
	if err != nil || got.GetBody() != "<!-- m -->\nsecond" {
		t.Fatalf("get after edit: %v, %q", err, got.GetBody())
	}

	onIssue, _, err := c.Issues.CreateComment(ctx, "o", "r", issue.Number, &gh.IssueComment{Body: gh.String("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%so/r/issues/%d#issuecomment-%d", s.ServerURL, issue.Number, onIssue.GetID()); onIssue.GetHTMLURL() != want {
		t.Errorf("html_url %s, want %s", onIssue.GetHTMLURL(), want)
	}

	resp, err = c.Issues.DeleteComment(ctx, "o", "r", id)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %v", err)
	}
	for name, call := range map[string]func() error{
		"get": func() error { _, _, err := c.Issues.GetComment(ctx, "o", "r", id); return err },
		"edit": func() error {
			_, _, err := c.Issues.EditComment(ctx, "o", "r", id, &gh.IssueComment{Body: gh.String("x")})
			return err
		},
		"delete": func() error { _, err := c.Issues.DeleteComment(ctx, "o", "r", id); return err },
		"create on #99": func() error {
			_, _, err := c.Issues.CreateComment(ctx, "o", "r", 99, &gh.IssueComment{Body: gh.String("x")})
			return err
		},
	} {
		if err := call(); status(err) != http.StatusNotFound {
			t.Errorf("%s after delete: %v, want 404", name, err)
		}
	}
	if got := s.Comments(7); len(got) != 0 {
		t.Errorf("comments on #7 after delete: %+v", got)
	}
	if got := s.Comments(issue.Number); len(got) != 1 || got[0].Body != "hi" {
		t.Errorf("comments on the issue: %+v", got)
	}
}

func TestIssuesListingAndEditing(t *testing.T) {
	s := newServer(t, nil)
	c := client(t, s, writeToken)
	ctx := context.Background()

	old := s.AddIssue("old report", "<!-- m -->\nold", "capreport", "report")
	other := s.AddIssue("unrelated", "", "capreport")
	created, resp, err := c.Issues.Create(ctx, "o", "r", &gh.IssueRequest{
		Title: gh.String("new report"), Body: gh.String("<!-- m -->\nnew"), Labels: &[]string{"capreport", "Report"},
	})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v", err)
	}
	if created.GetHTMLURL() != fmt.Sprintf("%so/r/issues/%d", s.ServerURL, created.GetNumber()) || created.GetNumber() <= other.Number {
		t.Errorf("created %d at %s", created.GetNumber(), created.GetHTMLURL())
	}
	// The pull request carries the labels too, so the listing mixes both.
	if _, _, err := c.Issues.Edit(ctx, "o", "r", 7, &gh.IssueRequest{Labels: &[]string{"capreport", "report"}}); err != nil {
		t.Fatal(err)
	}

	list := func(opts *gh.IssueListByRepoOptions) (numbers []int, prs []int) {
		t.Helper()
		page, _, err := c.Issues.ListByRepo(ctx, "o", "r", opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range page {
			if is.IsPullRequest() {
				prs = append(prs, is.GetNumber())
				continue
			}
			numbers = append(numbers, is.GetNumber())
		}
		return numbers, prs
	}

	tests := []struct {
		name      string
		opts      *gh.IssueListByRepoOptions
		want, prs []int
	}{
		{"default: open, newest first", nil, []int{created.GetNumber(), other.Number, old.Number}, []int{7}},
		{"all labels must match", &gh.IssueListByRepoOptions{Labels: []string{"capreport", "REPORT"}}, []int{created.GetNumber(), old.Number}, []int{7}},
		{"oldest first", &gh.IssueListByRepoOptions{Labels: []string{"report"}, Sort: "created", Direction: "asc"}, []int{old.Number, created.GetNumber()}, []int{7}},
		{"unknown label", &gh.IssueListByRepoOptions{Labels: []string{"nope"}}, nil, nil},
		{"closed", &gh.IssueListByRepoOptions{State: "closed"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, prs := list(tt.opts)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || fmt.Sprint(prs) != fmt.Sprint(tt.prs) {
				t.Errorf("issues %v and PRs %v, want %v and %v", got, prs, tt.want, tt.prs)
			}
		})
	}

	// Editing the oldest makes it the most recently updated, and closing
	// takes it out of the open listing.
	ed, _, err := c.Issues.Edit(ctx, "o", "r", old.Number, &gh.IssueRequest{Body: gh.String("<!-- m -->\nedited")})
	if err != nil || ed.GetBody() != "<!-- m -->\nedited" || ed.GetTitle() != "old report" {
		t.Fatalf("edit: %v %+v", err, ed)
	}
	if got, _ := list(&gh.IssueListByRepoOptions{Sort: "updated"}); len(got) == 0 || got[0] != old.Number {
		t.Errorf("by updated: %v, want %d first", got, old.Number)
	}
	if _, _, err := c.Issues.Edit(ctx, "o", "r", old.Number, &gh.IssueRequest{State: gh.String("closed")}); err != nil {
		t.Fatal(err)
	}
	if got, _ := list(&gh.IssueListByRepoOptions{State: "closed"}); fmt.Sprint(got) != fmt.Sprint([]int{old.Number}) {
		t.Errorf("closed: %v", got)
	}
	got, _, err := c.Issues.Get(ctx, "o", "r", old.Number)
	if err != nil || got.GetState() != "closed" || got.ClosedAt == nil {
		t.Errorf("get: %v %+v", err, got)
	}
	pr, _, err := c.Issues.Get(ctx, "o", "r", 7)
	if err != nil || !pr.IsPullRequest() || pr.GetHTMLURL() != s.ServerURL+"o/r/pull/7" {
		t.Errorf("get #7 as an issue: %v %+v", err, pr)
	}

	issues := s.Issues()
	if len(issues) != 3 || issues[0].State != "closed" || issues[2].Title != "new report" ||
		fmt.Sprint(issues[2].Labels) != "[capreport Report]" {
		t.Errorf("Issues() = %+v", issues)
	}

	if _, _, err := c.Issues.Create(ctx, "o", "r", &gh.IssueRequest{Body: gh.String("no title")}); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("create without title: %v, want 422", err)
	}
	if _, _, err := c.Issues.Get(ctx, "o", "r", 1000); status(err) != http.StatusNotFound {
		t.Errorf("get #1000: %v, want 404", err)
	}
}

func TestIssuesPagination(t *testing.T) {
	s := newServer(t, nil)
	for i := range 5 {
		s.AddIssue(fmt.Sprint(i), "")
	}
	c := client(t, s, readToken)
	opts := &gh.IssueListByRepoOptions{Direction: "asc", ListOptions: gh.ListOptions{PerPage: 2}}
	var titles []string
	for {
		page, resp, err := c.Issues.ListByRepo(context.Background(), "o", "r", opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range page {
			titles = append(titles, is.GetTitle())
		}
		if resp.NextPage == 0 {
			break
		}
		// The next page keeps the other query parameters.
		if next := resp.Header.Get("Link"); !strings.Contains(next, "direction=asc") {
			t.Errorf("Link drops the query: %s", next)
		}
		opts.Page = resp.NextPage
	}
	// Six entries: five issues and pull request #7, which was created first.
	if got := strings.Join(titles, ","); got != "Pull request #7,0,1,2,3,4" {
		t.Errorf("titles %s", got)
	}
}

func TestPulls(t *testing.T) {
	s := newServer(t, func(cfg *fakegithub.Config) {
		cfg.PullRequests = append(cfg.PullRequests,
			fakegithub.PullRequest{Number: 8, HeadOwner: "fork", HeadRepo: "r2", HeadRef: "feature"},
			fakegithub.PullRequest{Number: 9, HeadRef: "old", State: "merged"})
	})
	c := client(t, s, readToken)
	ctx := context.Background()

	tests := []struct {
		opts *gh.PullRequestListOptions
		want []int
	}{
		{nil, []int{8, 7}},
		{&gh.PullRequestListOptions{Head: "o:feature"}, []int{7}},
		{&gh.PullRequestListOptions{Head: "fork:feature"}, []int{8}},
		{&gh.PullRequestListOptions{Head: "o:nope"}, nil},
		{&gh.PullRequestListOptions{State: "closed"}, []int{9}},
		{&gh.PullRequestListOptions{State: "all", Direction: "asc"}, []int{7, 8, 9}},
	}
	for _, tt := range tests {
		prs, _, err := c.PullRequests.List(ctx, "o", "r", tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, pr := range prs {
			got = append(got, pr.GetNumber())
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%+v: %v, want %v", tt.opts, got, tt.want)
		}
	}

	pr, _, err := c.PullRequests.Get(ctx, "o", "r", 8)
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetHead().GetRepo().GetFullName() != "fork/r2" || pr.GetHead().GetRepo().GetOwner().GetLogin() != "fork" ||
		pr.GetHead().GetRef() != "feature" || pr.GetBase().GetRef() != "main" || pr.GetBase().GetRepo().GetFullName() != "o/r" ||
		pr.GetHTMLURL() != s.ServerURL+"o/r/pull/8" || pr.GetState() != "open" || len(pr.GetHead().GetSHA()) != 40 {
		t.Errorf("pull request %+v", pr)
	}
	if pr, _, _ := c.PullRequests.Get(ctx, "o", "r", 9); !pr.GetMerged() || pr.GetState() != "closed" {
		t.Errorf("#9: merged %v, state %s", pr.GetMerged(), pr.GetState())
	}
	if _, _, err := c.PullRequests.Get(ctx, "o", "r", 10); status(err) != http.StatusNotFound {
		t.Errorf("#10: %v, want 404", err)
	}
}

func TestBadCredentials(t *testing.T) {
	s := newServer(t, nil)
	for _, tt := range []struct{ name, header string }{
		{"none", ""},
		{"unknown token", "Bearer ghs_other"},
		{"no scheme", writeToken},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.URL+"repos/o/r/issues/7/comments", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			_, err := gh.NewClient(nil).Do(context.Background(), req, nil)
			var er *gh.ErrorResponse
			if !errors.As(err, &er) || er.Response.StatusCode != http.StatusUnauthorized || er.Message != "Bad credentials" ||
				er.DocumentationURL == "" {
				t.Errorf("got %v, want 401 Bad credentials", err)
			}
		})
	}
	// The older "token" scheme is accepted as well.
	req, _ := http.NewRequest("GET", s.URL+"repos/o/r/issues/7/comments", nil)
	req.Header.Set("Authorization", "token "+readToken)
	if _, err := gh.NewClient(nil).Do(context.Background(), req, nil); err != nil {
		t.Errorf("token scheme: %v", err)
	}
	if _, _, err := client(t, s, "ghs_wrong").Issues.CreateComment(context.Background(), "o", "r", 7, &gh.IssueComment{Body: gh.String("x")}); status(err) != http.StatusUnauthorized {
		t.Errorf("write with a wrong token: %v", err)
	}
	if len(s.Comments(7)) != 0 {
		t.Error("a refused write changed state")
	}
}

func TestPermissions(t *testing.T) {
	s := newServer(t, func(cfg *fakegithub.Config) {
		cfg.Tokens["ghs_issues"] = fakegithub.Permissions{Issues: "write"}
		cfg.Tokens["ghs_none"] = fakegithub.Permissions{}
	})
	issue := s.AddIssue("t", "b")
	seeded := s.AddComment(7, "seeded", "someone")
	ctx := context.Background()
	blob := &gh.Blob{Content: gh.String("x"), Encoding: gh.String("utf-8")}

	tests := []struct {
		name, token string
		do          func(*gh.Client) error
		want        string // X-Accepted-GitHub-Permissions, "" for success
	}{
		{"read-only comments on a PR", readToken, func(c *gh.Client) error {
			_, _, err := c.Issues.CreateComment(ctx, "o", "r", 7, &gh.IssueComment{Body: gh.String("x")})
			return err
		}, "pull_requests=write"},
		{"read-only edits a PR comment", readToken, func(c *gh.Client) error {
			_, _, err := c.Issues.EditComment(ctx, "o", "r", seeded.ID, &gh.IssueComment{Body: gh.String("x")})
			return err
		}, "pull_requests=write"},
		{"read-only deletes a PR comment", readToken, func(c *gh.Client) error {
			_, err := c.Issues.DeleteComment(ctx, "o", "r", seeded.ID)
			return err
		}, "pull_requests=write"},
		{"read-only comments on an issue", readToken, func(c *gh.Client) error {
			_, _, err := c.Issues.CreateComment(ctx, "o", "r", issue.Number, &gh.IssueComment{Body: gh.String("x")})
			return err
		}, "issues=write"},
		{"read-only opens an issue", readToken, func(c *gh.Client) error {
			_, _, err := c.Issues.Create(ctx, "o", "r", &gh.IssueRequest{Title: gh.String("x")})
			return err
		}, "issues=write"},
		{"read-only edits an issue", readToken, func(c *gh.Client) error {
			_, _, err := c.Issues.Edit(ctx, "o", "r", issue.Number, &gh.IssueRequest{Title: gh.String("x")})
			return err
		}, "issues=write"},
		{"read-only creates a blob", readToken, func(c *gh.Client) error {
			_, _, err := c.Git.CreateBlob(ctx, "o", "r", blob)
			return err
		}, "contents=write"},
		{"issues-only token comments on a PR", "ghs_issues", func(c *gh.Client) error {
			_, _, err := c.Issues.CreateComment(ctx, "o", "r", 7, &gh.IssueComment{Body: gh.String("x")})
			return err
		}, "pull_requests=write"},
		{"issues-only token opens an issue", "ghs_issues", func(c *gh.Client) error {
			_, _, err := c.Issues.Create(ctx, "o", "r", &gh.IssueRequest{Title: gh.String("x")})
			return err
		}, ""},
		{"no permissions lists comments", "ghs_none", func(c *gh.Client) error {
			_, _, err := c.Issues.ListComments(ctx, "o", "r", 7, nil)
			return err
		}, "issues=read; pull_requests=read"},
		{"no permissions reads a ref", "ghs_none", func(c *gh.Client) error {
			_, _, err := c.Git.GetRef(ctx, "o", "r", "heads/main")
			return err
		}, "contents=read"},
		{"read-only lists comments", readToken, func(c *gh.Client) error {
			_, _, err := c.Issues.ListComments(ctx, "o", "r", 7, nil)
			return err
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do(client(t, s, tt.token))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var er *gh.ErrorResponse
			if !errors.As(err, &er) || er.Response.StatusCode != http.StatusForbidden {
				t.Fatalf("got %v, want 403", err)
			}
			if er.Message != "Resource not accessible by integration" || !strings.HasPrefix(er.DocumentationURL, "https://docs.github.com/rest/") {
				t.Errorf("body %q %q", er.Message, er.DocumentationURL)
			}
			if got := er.Response.Header.Get("X-Accepted-GitHub-Permissions"); got != tt.want {
				t.Errorf("X-Accepted-GitHub-Permissions %q, want %q", got, tt.want)
			}
		})
	}
	if got := s.Comments(7); len(got) != 1 || got[0].Body != "seeded" || got[0].User != "someone" {
		t.Errorf("refused writes changed the comments: %+v", got)
	}
}

func TestBodyLimit(t *testing.T) {
	s := newServer(t, nil)
	c := client(t, s, writeToken)
	ctx := context.Background()
	// Characters, not bytes: "é" is two bytes.
	fits := strings.Repeat("é", 65536)
	over := fits + "é"

	if _, _, err := c.Issues.CreateComment(ctx, "o", "r", 7, &gh.IssueComment{Body: gh.String(fits)}); err != nil {
		t.Fatalf("65536 characters: %v", err)
	}
	tests := []struct {
		name, resource, doc string
		do                  func() error
	}{
		{"create comment", "IssueComment", "https://docs.github.com/rest/issues/comments#create-an-issue-comment", func() error {
			_, _, err := c.Issues.CreateComment(ctx, "o", "r", 7, &gh.IssueComment{Body: gh.String(over)})
			return err
		}},
		{"edit comment", "IssueComment", "https://docs.github.com/rest/issues/comments#update-an-issue-comment", func() error {
			_, _, err := c.Issues.EditComment(ctx, "o", "r", s.Comments(7)[0].ID, &gh.IssueComment{Body: gh.String(over)})
			return err
		}},
		{"create issue", "Issue", "https://docs.github.com/rest/issues/issues#create-an-issue", func() error {
			_, _, err := c.Issues.Create(ctx, "o", "r", &gh.IssueRequest{Title: gh.String("t"), Body: gh.String(over)})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var er *gh.ErrorResponse
			if err := tt.do(); !errors.As(err, &er) || er.Response.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("got %v, want 422", err)
			}
			want := gh.Error{Resource: tt.resource, Code: "custom", Field: "body", Message: "body is too long (maximum is 65536 characters)"}
			if er.Message != "Validation Failed" || len(er.Errors) != 1 || er.Errors[0] != want || er.DocumentationURL != tt.doc {
				t.Errorf("got %q %+v %s", er.Message, er.Errors, er.DocumentationURL)
			}
		})
	}
	if got := s.Comments(7); len(got) != 1 || got[0].Body != fits {
		t.Errorf("comments changed by refused writes")
	}

	small := newServer(t, func(cfg *fakegithub.Config) { cfg.MaxBodyChars = 3 })
	if _, _, err := client(t, small, writeToken).Issues.CreateComment(ctx, "o", "r", 7, &gh.IssueComment{Body: gh.String("abcd")}); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("MaxBodyChars 3: %v", err)
	}
}

func TestFailNext(t *testing.T) {
	ctx := context.Background()
	secondary := `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		check  func(t *testing.T, err error)
	}{
		{"502", http.StatusBadGateway, nil, "", func(t *testing.T, err error) {
			if status(err) != http.StatusBadGateway {
				t.Errorf("got %v, want 502", err)
			}
		}},
		{"secondary rate limit", http.StatusForbidden, http.Header{"Retry-After": {"60"}}, secondary, func(t *testing.T, err error) {
			var abuse *gh.AbuseRateLimitError
			if !errors.As(err, &abuse) || abuse.RetryAfter == nil || abuse.RetryAfter.Seconds() != 60 {
				t.Errorf("got %#v, want an AbuseRateLimitError retrying after 60s", err)
			}
		}},
		{"429", http.StatusTooManyRequests, http.Header{"Retry-After": {"5"}}, `{"message":"Too Many Requests"}`, func(t *testing.T, err error) {
			if status(err) != http.StatusTooManyRequests {
				t.Errorf("got %v, want 429", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, nil)
			s.FailNext("GET", "/x", 500, nil, "") // matches nothing below
			s.FailNext("POST", "/issues/7/comments", tt.status, tt.header, tt.body)
			body := &gh.IssueComment{Body: gh.String("x")}

			// Each request gets its own client: go-github remembers a
			// secondary rate limit and would not send the retry.
			if _, _, err := client(t, s, writeToken).Issues.ListComments(ctx, "o", "r", 7, nil); err != nil {
				t.Fatalf("a GET consumed the POST's failure: %v", err)
			}
			_, _, err := client(t, s, writeToken).Issues.CreateComment(ctx, "o", "r", 7, body)
			tt.check(t, err)
			if len(s.Comments(7)) != 0 {
				t.Fatal("the failed request changed state")
			}
			if _, _, err := client(t, s, writeToken).Issues.CreateComment(ctx, "o", "r", 7, body); err != nil {
				t.Fatalf("retry: %v", err)
			}
			if len(s.Comments(7)) != 1 {
				t.Errorf("comments %+v", s.Comments(7))
			}
			var statuses []int
			for _, r := range s.Requests() {
				statuses = append(statuses, r.Status)
			}
			if want := fmt.Sprint([]int{200, tt.status, 201}); fmt.Sprint(statuses) != want {
				t.Errorf("statuses %v, want %s", statuses, want)
			}
			if w := s.Writes(); len(w) != 2 || w[0].Status != tt.status || w[1].Method != "POST" || !strings.Contains(string(w[1].Body), `"body":"x"`) {
				t.Errorf("writes %+v", w)
			}
		})
	}
}

func TestEnterpriseLayout(t *testing.T) {
	s := newServer(t, func(cfg *fakegithub.Config) { cfg.Enterprise = true })
	if !strings.HasSuffix(s.URL, "/api/v3/") || !strings.HasSuffix(s.GraphQLURL, "/api/graphql") || strings.Contains(s.ServerURL, "/api/") {
		t.Fatalf("URLs %s %s %s", s.URL, s.GraphQLURL, s.ServerURL)
	}
	// go-github's own GHES setup: it adds api/v3/ to the host's root.
	c, err := gh.NewClient(nil).WithAuthToken(writeToken).WithEnterpriseURLs(s.ServerURL, s.ServerURL)
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL.String() != s.URL {
		t.Fatalf("go-github base %s, fake %s", c.BaseURL, s.URL)
	}
	ctx := context.Background()
	cm, _, err := c.Issues.CreateComment(ctx, "o", "r", 7, &gh.IssueComment{Body: gh.String("x")})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%so/r/pull/7#issuecomment-%d", s.ServerURL, cm.GetID()); cm.GetHTMLURL() != want {
		t.Errorf("html_url %s, want %s", cm.GetHTMLURL(), want)
	}
	for i := range 3 {
		s.AddComment(7, fmt.Sprint(i), "")
	}
	_, resp, err := c.Issues.ListComments(ctx, "o", "r", 7, &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 2}})
	if err != nil || resp.NextPage != 2 || !strings.Contains(resp.Header.Get("Link"), "/api/v3/repos/o/r/issues/7/comments?") {
		t.Errorf("Link %q (%v)", resp.Header.Get("Link"), err)
	}
	if r, _ := minimize(t, c, s.GraphQLURL, cm.GetNodeID()); r.Data.MinimizeComment == nil {
		t.Errorf("GraphQL at %s: %+v", s.GraphQLURL, r)
	}

	// The github.com layout is not served.
	gc := client(t, s, writeToken)
	gc.BaseURL, _ = url.Parse(s.ServerURL)
	if _, _, err := gc.Issues.ListComments(ctx, "o", "r", 7, nil); status(err) != http.StatusNotFound {
		t.Errorf("REST at the root: %v, want 404", err)
	}
	if _, err := minimize(t, gc, s.ServerURL+"graphql", cm.GetNodeID()); status(err) != http.StatusNotFound {
		t.Errorf("GraphQL at /graphql: %v, want 404", err)
	}
}

// gqlResponse is the answer to the minimize mutation.
type gqlResponse struct {
	Data struct {
		MinimizeComment *struct {
			MinimizedComment struct {
				IsMinimized     bool   `json:"isMinimized"`
				MinimizedReason string `json:"minimizedReason"`
			} `json:"minimizedComment"`
		} `json:"minimizeComment"`
	} `json:"data"`
	Errors []struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"errors"`
}

// minimize sends capreport's mutation through go-github, as the report
// package does.
func minimize(t *testing.T, c *gh.Client, graphqlURL, nodeID string) (gqlResponse, error) {
	t.Helper()
	const mutation = `mutation($id: ID!) {
  minimizeComment(input: {subjectId: $id, classifier: OUTDATED}) {
    minimizedComment { isMinimized minimizedReason }
  }
}`
	req, err := c.NewRequest("POST", graphqlURL, map[string]any{"query": mutation, "variables": map[string]any{"id": nodeID}})
	if err != nil {
		t.Fatal(err)
	}
	var out gqlResponse
	_, err = c.Do(context.Background(), req, &out)
	return out, err
}

func TestMinimize(t *testing.T) {
	s := newServer(t, nil)
	target := s.AddComment(7, "old", "")
	other := s.AddComment(7, "other", "")

	out, err := minimize(t, client(t, s, readToken), s.GraphQLURL, target.NodeID)
	if err != nil || len(out.Errors) != 1 || out.Errors[0].Type != "FORBIDDEN" ||
		out.Errors[0].Message != "Resource not accessible by integration" || out.Data.MinimizeComment != nil {
		t.Errorf("read-only token: %v %+v", err, out)
	}

	out, err = minimize(t, client(t, s, writeToken), s.GraphQLURL, target.NodeID)
	if err != nil || len(out.Errors) != 0 || out.Data.MinimizeComment == nil ||
		!out.Data.MinimizeComment.MinimizedComment.IsMinimized || out.Data.MinimizeComment.MinimizedComment.MinimizedReason != "outdated" {
		t.Fatalf("minimize: %v %+v", err, out)
	}
	got := s.Comments(7)
	if !got[0].Minimized || got[0].MinimizedReason != "outdated" || got[1].Minimized || got[1].ID != other.ID {
		t.Errorf("comments after minimize: %+v", got)
	}

	out, err = minimize(t, client(t, s, writeToken), s.GraphQLURL, "IC_nope")
	if err != nil || len(out.Errors) != 1 || out.Errors[0].Type != "NOT_FOUND" ||
		out.Errors[0].Message != "Could not resolve to a node with the global id of 'IC_nope'" || out.Data.MinimizeComment != nil {
		t.Errorf("unknown node: %v %+v", err, out)
	}

	// Any other query is answered 200 with errors.
	c := client(t, s, writeToken)
	req, _ := c.NewRequest("POST", s.GraphQLURL, map[string]any{"query": "query { viewer { login } }"})
	var other2 gqlResponse
	if resp, err := c.Do(context.Background(), req, &other2); err != nil || resp.StatusCode != http.StatusOK || len(other2.Errors) == 0 {
		t.Errorf("other query: %v %+v", err, other2)
	}
	if w := s.Writes(); len(w) != 4 || w[0].Path != "/graphql" {
		t.Errorf("GraphQL writes: %d", len(w))
	}
}

func TestGitDataRoundTrip(t *testing.T) {
	s := newServer(t, nil)
	c := client(t, s, writeToken)
	ctx := context.Background()
	png := []byte("\x89PNG\r\n\x1a\n\x00binary")

	pngBlob, resp, err := c.Git.CreateBlob(ctx, "o", "r", &gh.Blob{Content: gh.String(base64.StdEncoding.EncodeToString(png)), Encoding: gh.String("base64")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatal(err)
	}
	readme, _, err := c.Git.CreateBlob(ctx, "o", "r", &gh.Blob{Content: gh.String("hello\n"), Encoding: gh.String("utf-8")})
	if err != nil {
		t.Fatal(err)
	}
	if readme.GetSHA() != "ce013625030ba8dba906f756967f9e9ca394464a" { // git hash-object of "hello\n"
		t.Errorf("blob sha %s is not Git's", readme.GetSHA())
	}

	entry := func(path, sha string) *gh.TreeEntry {
		return &gh.TreeEntry{Path: gh.String(path), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: gh.String(sha)}
	}
	tree1, _, err := c.Git.CreateTree(ctx, "o", "r", "", []*gh.TreeEntry{entry("README.md", readme.GetSHA())})
	if err != nil {
		t.Fatal(err)
	}
	commit1, resp, err := c.Git.CreateCommit(ctx, "o", "r", &gh.Commit{Message: gh.String("first"), Tree: tree1}, nil)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatal(err)
	}
	ref, resp, err := c.Git.CreateRef(ctx, "o", "r", &gh.Reference{Ref: gh.String("refs/heads/capreport/images"), Object: &gh.GitObject{SHA: commit1.SHA}})
	if err != nil || resp.StatusCode != http.StatusCreated || ref.GetObject().GetSHA() != commit1.GetSHA() {
		t.Fatalf("create ref: %v %+v", err, ref)
	}
	if _, _, err := c.Git.CreateRef(ctx, "o", "r", &gh.Reference{Ref: gh.String("refs/heads/capreport/images"), Object: &gh.GitObject{SHA: commit1.SHA}}); !hasMessage(err, 422, "Reference already exists") {
		t.Errorf("create existing ref: %v", err)
	}

	// The second commit adds a nested file on top of the first tree.
	got, _, err := c.Git.GetRef(ctx, "o", "r", "heads/capreport/images")
	if err != nil || got.GetObject().GetSHA() != commit1.GetSHA() {
		t.Fatalf("get ref: %v %+v", err, got)
	}
	parent, _, err := c.Git.GetCommit(ctx, "o", "r", got.GetObject().GetSHA())
	if err != nil || parent.GetTree().GetSHA() != tree1.GetSHA() || parent.GetMessage() != "first" {
		t.Fatalf("get commit: %v %+v", err, parent)
	}
	tree2, _, err := c.Git.CreateTree(ctx, "o", "r", parent.GetTree().GetSHA(), []*gh.TreeEntry{entry("pr-7/a/b/chart.png", pngBlob.GetSHA())})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree2.Entries) != 2 || tree2.Entries[0].GetPath() != "README.md" || tree2.Entries[1].GetPath() != "pr-7" || tree2.Entries[1].GetType() != "tree" {
		t.Errorf("tree entries %+v", tree2.Entries)
	}
	commit2, _, err := c.Git.CreateCommit(ctx, "o", "r", &gh.Commit{Message: gh.String("second"), Tree: tree2, Parents: []*gh.Commit{commit1}}, nil)
	if err != nil || len(commit2.Parents) != 1 || commit2.Parents[0].GetSHA() != commit1.GetSHA() ||
		commit2.GetHTMLURL() != s.ServerURL+"o/r/commit/"+commit2.GetSHA() {
		t.Fatalf("second commit: %v %+v", err, commit2)
	}
	if _, resp, err := c.Git.UpdateRef(ctx, "o", "r", &gh.Reference{Ref: gh.String("refs/heads/capreport/images"), Object: &gh.GitObject{SHA: commit2.SHA}}, false); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("fast-forward: %v", err)
	}

	// A commit beside the tip is not a fast forward, unless forced.
	side, _, err := c.Git.CreateCommit(ctx, "o", "r", &gh.Commit{Message: gh.String("side"), Tree: tree1, Parents: []*gh.Commit{commit1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Git.UpdateRef(ctx, "o", "r", &gh.Reference{Ref: gh.String("heads/capreport/images"), Object: &gh.GitObject{SHA: side.SHA}}, false); !hasMessage(err, 422, "Update is not a fast forward") {
		t.Errorf("non-fast-forward: %v", err)
	}
	if sha, _ := s.Ref("capreport/images"); sha != commit2.GetSHA() {
		t.Errorf("ref moved by a refused update: %s", sha)
	}

	for path, want := range map[string][]byte{"README.md": []byte("hello\n"), "pr-7/a/b/chart.png": png} {
		if got, ok := s.File("capreport/images", path); !ok || string(got) != string(want) {
			t.Errorf("File(%s) = %q, %v", path, got, ok)
		}
	}
	for _, path := range []string{"pr-7", "pr-7/a/b", "nope", "README.md/x"} {
		if _, ok := s.File("capreport/images", path); ok {
			t.Errorf("File(%s) found", path)
		}
	}
	if _, ok := s.File("main", "README.md"); ok {
		t.Error("File on a missing branch")
	}

	if _, resp, err := c.Git.UpdateRef(ctx, "o", "r", &gh.Reference{Ref: gh.String("heads/capreport/images"), Object: &gh.GitObject{SHA: side.SHA}}, true); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("forced update: %v", err)
	}
	if _, ok := s.File("capreport/images", "pr-7/a/b/chart.png"); ok {
		t.Error("the forced update did not move the branch")
	}
	raw, _, err := c.Git.GetBlobRaw(ctx, "o", "r", pngBlob.GetSHA())
	if err != nil || string(raw) != string(png) {
		t.Errorf("raw blob %q %v", raw, err)
	}
}

func TestGitDataErrors(t *testing.T) {
	s := newServer(t, nil)
	c := client(t, s, writeToken)
	ctx := context.Background()
	readme, _, err := c.Git.CreateBlob(ctx, "o", "r", &gh.Blob{Content: gh.String("hello\n")})
	if err != nil {
		t.Fatal(err)
	}
	base, _, err := c.Git.CreateTree(ctx, "o", "r", "", []*gh.TreeEntry{
		{Path: gh.String("a/one"), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: readme.SHA},
		{Path: gh.String("a/two"), Mode: gh.String("100644"), Type: gh.String("blob"), Content: gh.String("two")},
	})
	if err != nil {
		t.Fatal(err)
	}
	missing := strings.Repeat("0", 40)
	tests := []struct {
		name  string
		entry *gh.TreeEntry
		base  string
	}{
		{"bad mode", &gh.TreeEntry{Path: gh.String("x"), Mode: gh.String("644"), Type: gh.String("blob"), SHA: readme.SHA}, ""},
		{"bad type", &gh.TreeEntry{Path: gh.String("x"), Mode: gh.String("100644"), Type: gh.String("file"), SHA: readme.SHA}, ""},
		{"unknown blob", &gh.TreeEntry{Path: gh.String("x"), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: &missing}, ""},
		{"bad path", &gh.TreeEntry{Path: gh.String("a//x"), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: readme.SHA}, ""},
		{"unknown base", &gh.TreeEntry{Path: gh.String("x"), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: readme.SHA}, missing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := c.Git.CreateTree(ctx, "o", "r", tt.base, []*gh.TreeEntry{tt.entry}); status(err) != http.StatusUnprocessableEntity {
				t.Errorf("got %v, want 422", err)
			}
		})
	}

	// A null sha deletes a path from the base tree.
	pruned, _, err := c.Git.CreateTree(ctx, "o", "r", base.GetSHA(), []*gh.TreeEntry{{Path: gh.String("a/two"), Mode: gh.String("100644"), Type: gh.String("blob")}})
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := c.Git.GetTree(ctx, "o", "r", pruned.GetSHA(), true)
	if err != nil || len(full.Entries) != 2 || full.Entries[1].GetPath() != "a/one" {
		t.Errorf("recursive tree: %v %+v", err, full.Entries)
	}

	if _, _, err := c.Git.CreateCommit(ctx, "o", "r", &gh.Commit{Message: gh.String("m"), Tree: &gh.Tree{SHA: &missing}}, nil); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("commit of a missing tree: %v", err)
	}
	if _, _, err := c.Git.CreateCommit(ctx, "o", "r", &gh.Commit{Message: gh.String("m"), Tree: base, Parents: []*gh.Commit{{SHA: &missing}}}, nil); !hasMessage(err, 422, "Parent SHA does not exist or is not a commit object") {
		t.Errorf("commit with a missing parent: %v", err)
	}
	if _, _, err := c.Git.GetRef(ctx, "o", "r", "heads/nope"); status(err) != http.StatusNotFound {
		t.Errorf("missing ref: %v", err)
	}
	if _, _, err := c.Git.UpdateRef(ctx, "o", "r", &gh.Reference{Ref: gh.String("heads/nope"), Object: &gh.GitObject{SHA: readme.SHA}}, true); !hasMessage(err, 422, "Reference does not exist") {
		t.Errorf("update of a missing ref: %v", err)
	}
	if _, _, err := c.Git.CreateRef(ctx, "o", "r", &gh.Reference{Ref: gh.String("refs/heads/x"), Object: &gh.GitObject{SHA: &missing}}); !hasMessage(err, 422, "Object does not exist") {
		t.Errorf("ref to a missing object: %v", err)
	}
}

func TestMalformedRequests(t *testing.T) {
	s := newServer(t, nil)
	do := func(method, path, contentType, body string) (int, string) {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+writeToken)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		name, method, path, contentType, body string
		status                                int
		message                               string
	}{
		{"not JSON", "POST", "repos/o/r/issues/7/comments", "application/json", "body=x", 400, "Problems parsing JSON"},
		{"form content type", "POST", "repos/o/r/issues/7/comments", "application/x-www-form-urlencoded", `{"body":"x"}`, 400, "Problems parsing JSON"},
		{"wrong JSON type", "POST", "repos/o/r/issues/7/comments", "application/json", `{"body":5}`, 422, "Invalid request."},
		{"missing body", "POST", "repos/o/r/issues/7/comments", "application/json", `{}`, 422, "Validation Failed"},
		{"unknown route", "GET", "repos/o/r/nothing", "", "", 404, "Not Found"},
		{"other repository", "GET", "repos/o/other/issues", "", "", 404, "Not Found"},
		{"wrong method", "PUT", "repos/o/r/issues/7/comments", "application/json", `{}`, 404, "Not Found"},
		{"charset is fine", "POST", "repos/o/r/issues/7/comments", "application/json; charset=utf-8", `{"body":"ok"}`, 201, ""},
		{"owner is case-insensitive", "GET", "repos/O/R/issues/7/comments", "", "", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := do(tt.method, tt.path, tt.contentType, tt.body)
			if status != tt.status || !strings.Contains(body, tt.message) {
				t.Errorf("got %d %s, want %d %q", status, body, tt.status, tt.message)
			}
		})
	}
	if got := s.Comments(7); len(got) != 1 || got[0].Body != "ok" {
		t.Errorf("comments %+v", got)
	}
	if n := len(s.Requests()); n != len(tests) {
		t.Errorf("%d requests recorded, want %d", n, len(tests))
	}
}

// TestConcurrentWrites is for -race: writes from many goroutines each get
// their own id and none is lost.
func TestConcurrentWrites(t *testing.T) {
	s := newServer(t, nil)
	c := client(t, s, writeToken)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			if _, _, err := c.Issues.CreateComment(context.Background(), "o", "r", 7, &gh.IssueComment{Body: gh.String(fmt.Sprint(i))}); err != nil {
				errs <- err
			}
			_ = s.Comments(7)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := map[int64]bool{}
	for _, cm := range s.Comments(7) {
		seen[cm.ID] = true
	}
	if len(seen) != 20 || len(s.Writes()) != 20 {
		t.Errorf("%d distinct comments, %d writes; want 20", len(seen), len(s.Writes()))
	}
}

// hasMessage says whether err is GitHub's answer status with message.
func hasMessage(err error, status int, message string) bool {
	var er *gh.ErrorResponse
	return errors.As(err, &er) && er.Response.StatusCode == status && er.Message == message
}

// TestUserAndCommentAuthor: GET /user names a user token's login and is
// refused to an installation token, as GitHub does; a comment carries the
// login its token writes as (github-actions[bot], the app's bot, the user).
func TestUserAndCommentAuthor(t *testing.T) {
	const userToken, appToken = "ghp_user", "ghs_app"
	s := newServer(t, func(c *fakegithub.Config) {
		c.Tokens[userToken] = fakegithub.Permissions{PullRequests: "write", Login: "alice"}
		c.Tokens[appToken] = fakegithub.Permissions{PullRequests: "write", App: "capbot[bot]"}
	})
	ctx := context.Background()
	for _, tc := range []struct {
		token, login string
		userStatus   int
	}{
		{writeToken, "github-actions[bot]", 403},
		{appToken, "capbot[bot]", 403},
		{userToken, "alice", 200},
	} {
		c := client(t, s, tc.token)
		u, _, err := c.Users.Get(ctx, "")
		if got := status(err); tc.userStatus == 403 && (got != 403 || !strings.Contains(err.Error(), "Resource not accessible by integration")) {
			t.Errorf("%s: GET /user %v", tc.token, err)
		}
		if tc.userStatus == 200 && (err != nil || u.GetLogin() != "alice" || u.GetType() != "User") {
			t.Errorf("%s: GET /user %+v, %v", tc.token, u, err)
		}
		cm, _, err := c.Issues.CreateComment(ctx, "o", "r", 7, &gh.IssueComment{Body: gh.String("x")})
		if err != nil || cm.GetUser().GetLogin() != tc.login {
			t.Errorf("%s: comment by %q, %v", tc.token, cm.GetUser().GetLogin(), err)
		}
	}
}
