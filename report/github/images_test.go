package github

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/capreport/capreport/internal/fakegithub"
)

func fakeRepo(t *testing.T, contents string) (*fakegithub.Server, *Client) {
	t.Helper()
	f := fakegithub.New(t, fakegithub.Config{Owner: "o", Repo: "r",
		Tokens: map[string]fakegithub.Permissions{testToken: {PullRequests: "write", Contents: contents}},
		PullRequests: []fakegithub.PullRequest{
			{Number: 3, HeadOwner: "o", HeadRepo: "r", HeadRef: "topic", HeadSHA: "aaa", BaseRef: "main"},
			{Number: 4, HeadOwner: "fork", HeadRepo: "r", HeadRef: "topic", HeadSHA: "bbb", BaseRef: "main"},
		}})
	c, err := New(Config{Token: testToken, BaseURL: f.URL, Retry: noWait(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

// TestPublishImages: an orphan branch is created, later runs add commits
// on top (keeping earlier files), a racing writer is absorbed by one
// rebuild, and links name the commit.
func TestPublishImages(t *testing.T) {
	f, c := fakeRepo(t, "write")
	ctx := context.Background()
	png := []byte("\x89PNG\r\n\x1a\nfirst")
	p1, err := c.PublishImages(ctx, "o", "r", "capreport-images", "pr-3/aaaaaaaaaaaa", "https://github.com/", []Image{{Name: "a size.png", Data: png}})
	if err != nil {
		t.Fatal(err)
	}
	if tip, _ := f.Ref("capreport-images"); tip != p1.Commit {
		t.Errorf("branch at %s, published %s", tip, p1.Commit)
	}
	if got := p1.URL("a size.png"); got != "https://github.com/o/r/raw/"+p1.Commit+"/pr-3/aaaaaaaaaaaa/a%20size.png" {
		t.Errorf("URL %s", got)
	}
	// Another writer moves the branch between our read and our update.
	f.FailNext("PATCH", "/git/refs/heads/capreport-images", http.StatusUnprocessableEntity, nil, `{"message":"Update is not a fast forward"}`)
	p2, err := c.PublishImages(ctx, "o", "r", "capreport-images", "pr-3/bbbbbbbbbbbb", "https://github.com/", []Image{{Name: "t.png", Data: []byte("second")}})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{"pr-3/aaaaaaaaaaaa/a size.png": png, "pr-3/bbbbbbbbbbbb/t.png": []byte("second")} {
		if got, ok := f.File("capreport-images", path); !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: %q, %v", path, got, ok)
		}
	}
	if p2.Commit == p1.Commit {
		t.Error("no new commit")
	}
	for _, bad := range [][]Image{nil, {{Name: "../x.png"}}, {{Name: "a.png"}, {Name: "a.png"}}, {{Name: "/abs.png"}}} {
		if _, err := c.PublishImages(ctx, "o", "r", "capreport-images", "d", "https://github.com/", bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	for _, branch := range []string{"", "-x", "a..b", "a b", "refs/heads/x:y", "x.lock"} {
		if _, err := c.PublishImages(ctx, "o", "r", branch, "d", "https://github.com/", []Image{{Name: "a.png"}}); err == nil || !strings.Contains(err.Error(), "not a valid branch name") {
			t.Errorf("branch %q: %v", branch, err)
		}
	}
}

func TestPublishImagesNeedsContentsWrite(t *testing.T) {
	_, c := fakeRepo(t, "read")
	_, err := c.PublishImages(context.Background(), "o", "r", "capreport-images", "pr-3", "https://github.com/", []Image{{Name: "a.png", Data: []byte("x")}})
	checkErr(t, err, ErrForbidden, "upload image a.png to o/r@capreport-images: the token lacks the permission contents: write")
}

// TestFindPullRequest: the pull request is the open one with that head
// owner, branch and commit.
func TestFindPullRequest(t *testing.T) {
	_, c := fakeRepo(t, "read")
	ctx := context.Background()
	for _, tc := range []struct {
		owner, branch, sha string
		want               int
		err                string
	}{
		{"o", "topic", "aaa", 3, ""},
		{"fork", "topic", "bbb", 4, ""},
		{"fork", "topic", "aaa", 0, "no open pull request of o/r has the head fork:topic at aaa"},
		{"", "topic", "aaa", 0, "the run names no head"},
	} {
		got, err := c.FindPullRequest(ctx, "o", "r", tc.owner, tc.branch, tc.sha)
		if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s:%s@%s = %d, %v; want %d, %q", tc.owner, tc.branch, tc.sha, got, err, tc.want, tc.err)
		}
	}
}

func TestServerURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "https://github.com/",
		"https://api.github.com":           "https://github.com/",
		"https://ghe.example.com/api/v3/":  "https://ghe.example.com/",
		"https://ghe.example.com/api/v3":   "https://ghe.example.com/",
		"http://127.0.0.1:8080/":           "http://127.0.0.1:8080/",
		"https://x.example/prefix/api/v3/": "https://x.example/prefix/",
	} {
		if got := ServerURL(in); got != want {
			t.Errorf("ServerURL(%q) = %q, want %q", in, got, want)
		}
	}
}
