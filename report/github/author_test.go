package github

import (
	"context"
	"slices"
	"testing"

	"github.com/capreport/capreport/internal/fakegithub"
)

// TestStickyCommentIsOwnedByItsAuthor: a comment bearing the marker that
// another user posted is never edited, hidden or deleted, in any behaviour,
// whether the token is GITHUB_TOKEN (GET /user refused: the comments of
// github-actions[bot] are ours), a user's (GET /user names alice) or a
// GitHub App's with Config.Author.
func TestStickyCommentIsOwnedByItsAuthor(t *testing.T) {
	old := "<!-- capreport -->\nold report"
	for _, tok := range []struct {
		name   string
		perms  fakegithub.Permissions
		author string // Config.Author
		self   string // whom our comments are by
	}{
		{"installation token", fakegithub.Permissions{PullRequests: "write"}, "", "github-actions[bot]"},
		{"user token", fakegithub.Permissions{PullRequests: "write", Login: "alice"}, "", "alice"},
		{"app token", fakegithub.Permissions{PullRequests: "write", App: "capbot[bot]"}, "capbot[bot]", "capbot[bot]"},
	} {
		for _, b := range Behaviors() {
			t.Run(tok.name+"/"+string(b), func(t *testing.T) {
				f := fakegithub.New(t, fakegithub.Config{Owner: "o", Repo: "r",
					PullRequests: []fakegithub.PullRequest{{Number: 7}},
					Tokens:       map[string]fakegithub.Permissions{testToken: tok.perms}})
				ours := f.AddComment(7, old, tok.self)
				theirs := f.AddComment(7, old, "mallory") // newer, same marker
				c, err := New(Config{Token: testToken, BaseURL: f.URL, Retry: noWait(t, nil), Author: tok.author})
				if err != nil {
					t.Fatal(err)
				}
				res, err := c.UpsertPRComment(context.Background(), "o", "r", 7, body, b)
				if err != nil {
					t.Fatal(err)
				}
				if res.ID == theirs.ID || slices.Contains(res.Hidden, theirs.ID) || slices.Contains(res.Deleted, theirs.ID) {
					t.Errorf("%+v touched mallory's comment %d", res, theirs.ID)
				}
				got := map[int64]fakegithub.Comment{}
				for _, cm := range f.Comments(7) {
					got[cm.ID] = cm
				}
				if m, ok := got[theirs.ID]; !ok || m.Body != old || m.Minimized || m.User != "mallory" {
					t.Errorf("mallory's comment now %+v (present %v)", m, ok)
				}
				// Our own earlier comment is the one the behaviour acts on.
				switch b {
				case BehaviorUpdate:
					if res.Action != Updated || res.ID != ours.ID || got[ours.ID].Body != body {
						t.Errorf("update: %+v, ours %+v", res, got[ours.ID])
					}
				case BehaviorDeleteAndNew:
					if _, ok := got[ours.ID]; ok || !slices.Equal(res.Deleted, []int64{ours.ID}) {
						t.Errorf("delete-and-new: %+v", res)
					}
				case BehaviorHideAndNew:
					if !got[ours.ID].Minimized || !slices.Equal(res.Hidden, []int64{ours.ID}) {
						t.Errorf("hide-and-new: %+v, ours %+v", res, got[ours.ID])
					}
				}
				if b != BehaviorUpdate && (res.Action != Created || got[res.ID].User != tok.self) {
					t.Errorf("%s: %+v, new comment by %q", b, res, got[res.ID].User)
				}
			})
		}
	}
}
