package github

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v62/github"

	"github.com/capreport/capreport/report"
)

// MaxBodyChars is GitHub's limit on a comment or issue body, the one the
// Markdown renderers keep under.
const MaxBodyChars = report.GitHubCommentLimit

// Behavior says what happens to earlier marked comments.
type Behavior string

// The comment behaviours (Infracost's names).
const (
	BehaviorUpdate       Behavior = "update"         // edit the latest marked comment in place; create if absent
	BehaviorNew          Behavior = "new"            // always create
	BehaviorHideAndNew   Behavior = "hide-and-new"   // minimize earlier marked comments as OUTDATED, then create
	BehaviorDeleteAndNew Behavior = "delete-and-new" // delete earlier marked comments, then create
)

// Behaviors lists every behaviour, for flag help and validation (a new
// slice each call).
func Behaviors() []Behavior {
	return []Behavior{BehaviorUpdate, BehaviorNew, BehaviorHideAndNew, BehaviorDeleteAndNew}
}

// ParseBehavior checks a behaviour's name.
func ParseBehavior(s string) (Behavior, error) {
	for _, b := range Behaviors() {
		if string(b) == s {
			return b, nil
		}
	}
	return "", fmt.Errorf("%q is not one of update, new, hide-and-new, delete-and-new", s)
}

// Action is what an upsert did.
type Action string

// Actions of a Result.
const (
	Created   Action = "created"
	Updated   Action = "updated"
	Unchanged Action = "unchanged" // the body was already current: nothing written
	Skipped   Action = "skipped"   // UpdatePRComment found no comment to update: nothing written
)

// Result describes the comment or issue an upsert left behind.
type Result struct {
	Action  Action
	ID      int64   // the comment's id, or the issue's number
	URL     string  // its html_url
	Hidden  []int64 // earlier comments minimized (hide-and-new)
	Deleted []int64 // earlier comments deleted (delete-and-new)
}

// Marker checks a body and returns its hidden marker: the first line, an
// HTML comment such as <!-- capreport -->, by which the comment or issue is
// found again. The body must fit GitHub's limit.
func Marker(body string) (string, error) {
	if n := utf8.RuneCountInString(body); n > MaxBodyChars {
		return "", fmt.Errorf("%w: %d characters, GitHub accepts at most %d (render with fewer details)", ErrTooLong, n, MaxBodyChars)
	}
	m := firstLine(body)
	if !strings.HasPrefix(m, "<!--") || !strings.HasSuffix(m, "-->") || len(m) < len("<!-- x -->") {
		return "", fmt.Errorf("the body's first line must be a hidden marker such as <!-- capreport -->, got %q", truncate(m, 40))
	}
	return m, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// sameBody compares bodies as GitHub keeps them: the web editor stores CRLF.
func sameBody(a, b string) bool {
	return strings.ReplaceAll(a, "\r\n", "\n") == strings.ReplaceAll(b, "\r\n", "\n")
}

// UpsertPRComment posts body on pull request pr of owner/repo as the sticky
// comment its first line marks, with the given behaviour.
func (c *Client) UpsertPRComment(ctx context.Context, owner, repo string, pr int, body string, behavior Behavior) (Result, error) {
	s, marked, err := c.findSticky(ctx, owner, repo, pr, body, behavior)
	if err != nil {
		return Result{}, err
	}

	var res Result
	switch behavior {
	case BehaviorUpdate:
		if len(marked) > 0 {
			return c.updateSticky(ctx, s, marked[len(marked)-1])
		}
	case BehaviorHideAndNew:
		if res.Hidden, err = c.hideSticky(ctx, s, marked); err != nil {
			return Result{}, err
		}
	case BehaviorDeleteAndNew:
		if res.Deleted, err = c.deleteSticky(ctx, s, marked); err != nil {
			return Result{}, err
		}
	}
	got, err := c.createSticky(ctx, s, marked)
	if err != nil {
		return Result{}, err
	}
	res.Action, res.ID, res.URL = Created, got.GetID(), got.GetHTMLURL()
	return res, nil
}

// UpdatePRComment edits the latest sticky comment its first line marks on
// pull request pr to body, and creates none: with no marked comment it
// writes nothing and reports Skipped. A pull request that changes nothing
// gets no comment, and one whose earlier comment is out of date gets it
// brought up to date rather than left stale.
func (c *Client) UpdatePRComment(ctx context.Context, owner, repo string, pr int, body string) (Result, error) {
	s, marked, err := c.findSticky(ctx, owner, repo, pr, body, BehaviorUpdate)
	if err != nil {
		return Result{}, err
	}
	if len(marked) == 0 {
		return Result{Action: Skipped}, nil
	}
	return c.updateSticky(ctx, s, marked[len(marked)-1])
}

// findSticky checks the arguments and lists the earlier comments the
// body's marker marks, written as the token's login.
func (c *Client) findSticky(ctx context.Context, owner, repo string, pr int, body string, behavior Behavior) (sticky, []*gh.IssueComment, error) {
	s, err := c.newSticky(ctx, owner, repo, pr, body, behavior)
	if err != nil {
		return sticky{}, nil, err
	}
	marked, err := c.markedComments(ctx, owner, repo, pr, s.marker, s.author)
	return s, marked, err
}

// sticky is what one UpsertPRComment works on: the pull request, the new
// body, and the marker and author by which earlier copies are found.
type sticky struct {
	owner, repo    string
	pr             int
	body           string
	marker, author string
	where          string // owner/repo#pr, for error messages
}

// newSticky checks UpsertPRComment's arguments, before any request, and
// finds the login the comments are written as.
func (c *Client) newSticky(ctx context.Context, owner, repo string, pr int, body string, behavior Behavior) (sticky, error) {
	if err := checkRepo(owner, repo); err != nil {
		return sticky{}, err
	}
	if pr <= 0 {
		return sticky{}, fmt.Errorf("pull request number %d must be positive", pr)
	}
	if _, err := ParseBehavior(string(behavior)); err != nil {
		return sticky{}, fmt.Errorf("comment behavior: %w", err)
	}
	marker, err := Marker(body)
	if err != nil {
		return sticky{}, err
	}
	author, err := c.self(ctx)
	if err != nil {
		return sticky{}, err
	}
	return sticky{owner: owner, repo: repo, pr: pr, body: body, marker: marker, author: author,
		where: fmt.Sprintf("%s/%s#%d", owner, repo, pr)}, nil
}

// updateSticky edits the latest marked comment to the new body, unless it
// already has it.
func (c *Client) updateSticky(ctx context.Context, s sticky, latest *gh.IssueComment) (Result, error) {
	if sameBody(latest.GetBody(), s.body) {
		return Result{Action: Unchanged, ID: latest.GetID(), URL: latest.GetHTMLURL()}, nil
	}
	got, _, err := c.gh.Issues.EditComment(ctx, s.owner, s.repo, latest.GetID(), &gh.IssueComment{Body: gh.String(s.body)})
	if err != nil {
		return Result{}, wrap(fmt.Sprintf("update comment %d on %s", latest.GetID(), s.where), needPullRequests, err)
	}
	return Result{Action: Updated, ID: got.GetID(), URL: got.GetHTMLURL()}, nil
}

// hideSticky minimizes the marked comments as outdated and returns their
// ids; it stops at the first failure.
func (c *Client) hideSticky(ctx context.Context, s sticky, marked []*gh.IssueComment) ([]int64, error) {
	var hidden []int64
	for _, cm := range marked {
		if err := c.minimize(ctx, cm.GetNodeID()); err != nil {
			return nil, wrap(fmt.Sprintf("hide comment %d on %s", cm.GetID(), s.where), needPullRequests, err)
		}
		hidden = append(hidden, cm.GetID())
	}
	return hidden, nil
}

// deleteSticky deletes the marked comments and returns their ids; it stops
// at the first failure.
func (c *Client) deleteSticky(ctx context.Context, s sticky, marked []*gh.IssueComment) ([]int64, error) {
	var deleted []int64
	for _, cm := range marked {
		if _, err := c.gh.Issues.DeleteComment(ctx, s.owner, s.repo, cm.GetID()); err != nil {
			return nil, wrap(fmt.Sprintf("delete comment %d on %s", cm.GetID(), s.where), needPullRequests, err)
		}
		deleted = append(deleted, cm.GetID())
	}
	return deleted, nil
}

// createSticky posts the new comment. When a failed create may still have
// been applied, the comment is looked for among the marked ones, skipping
// those that existed before (marked), so a retry does not post it twice.
func (c *Client) createSticky(ctx context.Context, s sticky, marked []*gh.IssueComment) (*gh.IssueComment, error) {
	known := map[int64]bool{}
	for _, cm := range marked {
		known[cm.GetID()] = true
	}
	got, err := createIdempotent(ctx, c.retry,
		func(ctx context.Context) (*gh.IssueComment, error) {
			got, _, err := c.gh.Issues.CreateComment(ctx, s.owner, s.repo, s.pr, &gh.IssueComment{Body: gh.String(s.body)})
			return got, err
		},
		func(ctx context.Context) (*gh.IssueComment, bool, error) {
			now, err := c.markedComments(ctx, s.owner, s.repo, s.pr, s.marker, s.author)
			for i := len(now) - 1; err == nil && i >= 0; i-- {
				if !known[now[i].GetID()] && sameBody(now[i].GetBody(), s.body) {
					return now[i], true, nil
				}
			}
			return nil, false, err
		})
	if err != nil {
		return nil, wrap("create comment on "+s.where, needPullRequests, err)
	}
	return got, nil
}

// markedComments lists every comment of the pull request, oldest first,
// and keeps those whose first line is the marker and whose author is
// author: anyone can post the marker, and a token with write access may
// edit or delete anyone's comment, so the marker alone is no proof.
func (c *Client) markedComments(ctx context.Context, owner, repo string, pr int, marker, author string) ([]*gh.IssueComment, error) {
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: perPage}}
	var marked []*gh.IssueComment
	for pages := 0; ; pages++ {
		if pages == maxPages {
			return nil, fmt.Errorf("list comments on %s/%s#%d: more than %d pages", owner, repo, pr, maxPages)
		}
		page, resp, err := c.gh.Issues.ListComments(ctx, owner, repo, pr, opts)
		if err != nil {
			return nil, wrap(fmt.Sprintf("list comments on %s/%s#%d", owner, repo, pr), "pull-requests: read", err)
		}
		for _, cm := range page {
			if ownMarked(cm, marker, author) {
				marked = append(marked, cm)
			}
		}
		if resp.NextPage == 0 {
			return marked, nil
		}
		opts.Page = resp.NextPage
	}
}

// ownMarked reports whether cm is the sticky comment: its first line is
// the marker and author wrote it.
func ownMarked(cm *gh.IssueComment, marker, author string) bool {
	return firstLine(cm.GetBody()) == marker && sameLogin(cm.GetUser().GetLogin(), author)
}

// sameLogin compares logins as GitHub does: ASCII, case-insensitive.
// strings.EqualFold is not that: it folds the Kelvin sign onto "k" and any
// two invalid bytes onto each other, so a login that is not ours could
// pass for it.
func sameLogin(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x >= utf8.RuneSelf || y >= utf8.RuneSelf || lowerASCII(x) != lowerASCII(y) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func checkRepo(owner, repo string) error {
	if owner == "" || repo == "" || strings.ContainsAny(owner+repo, "/?#% ") {
		return fmt.Errorf("repository %q/%q: expected OWNER and NAME", owner, repo)
	}
	return nil
}
