package github

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
)

const marker = "<!-- capreport -->"

var body = marker + "\n## capreport\n\n2 autoscalers changed, 1 fails.\n"

func newTestClient(t *testing.T, baseURL string) *Client {
	t.Helper()
	c, err := New(Config{Token: testToken, BaseURL: baseURL, Retry: noWait(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// filler is n unmarked comments from id first on.
func filler(first int64, n int) []comment {
	cs := make([]comment, n)
	for i := range cs {
		cs[i] = comment{first + int64(i), "looks good"}
	}
	return cs
}

// upsertCase is one UpsertPRComment scenario: the requests the fake
// expects, and the result.
type upsertCase struct {
	name     string
	behavior Behavior
	stubs    func(t *testing.T) []*stub
	want     Result
}

func (c upsertCase) run(t *testing.T) {
	t.Helper()
	f := newFake(t, c.stubs(t)...)
	got, err := newTestClient(t, f.url()).UpsertPRComment(context.Background(), "o", "r", 7, body, c.behavior)
	if err != nil {
		t.Fatal(err)
	}
	if got.Action != c.want.Action || got.ID != c.want.ID || got.URL != c.want.URL ||
		!slices.Equal(got.Hidden, c.want.Hidden) || !slices.Equal(got.Deleted, c.want.Deleted) {
		t.Errorf("result %+v, want %+v", got, c.want)
	}
}

func url7(id string) string { return "https://github.com/o/r/pull/7#issuecomment-" + id }

func TestUpsertPRComment(t *testing.T) {
	// Page 1 is full (100 comments) with an old marked comment; page 2
	// holds the latest marked one and a reply that quotes the marker.
	page1 := append(filler(1, 99), comment{50, marker + "\nold report"})
	page2 := []comment{{150, marker + "\nprevious report"}, {151, "> " + marker + "\n> quoted"}}
	for _, c := range []upsertCase{
		{
			name: "update edits the latest marked comment, found on page 2", behavior: BehaviorUpdate,
			stubs: func(t *testing.T) []*stub {
				return []*stub{
					commentPage(t, "", 1, false, page1...),
					commentPage(t, "", 2, true, page2...),
					{method: "PATCH", path: "/repos/o/r/issues/comments/150", check: wantBody(body),
						body: jsonOf(t, commentJSON(comment{150, body}))},
				}
			},
			want: Result{Action: Updated, ID: 150, URL: url7("150")},
		},
		{
			name: "update skips an unchanged body (GitHub keeps CRLF)", behavior: BehaviorUpdate,
			stubs: func(t *testing.T) []*stub {
				return []*stub{commentPage(t, "", 1, true, comment{3, "hi"}, comment{4, strings.ReplaceAll(body, "\n", "\r\n")})}
			},
			want: Result{Action: Unchanged, ID: 4, URL: url7("4")},
		},
		{
			name: "update creates when no comment is marked", behavior: BehaviorUpdate,
			stubs: func(t *testing.T) []*stub {
				return []*stub{
					commentPage(t, "", 1, true, comment{3, "hi"}, comment{4, "> " + marker}),
					createComment(t, "", body, 200),
				}
			},
			want: Result{Action: Created, ID: 200, URL: url7("200")},
		},
		{
			name: "new always creates", behavior: BehaviorNew,
			stubs: func(t *testing.T) []*stub {
				return []*stub{
					commentPage(t, "", 1, true, comment{150, body}),
					createComment(t, "", body, 201),
				}
			},
			want: Result{Action: Created, ID: 201, URL: url7("201")},
		},
		{
			name: "hide-and-new minimizes every marked comment as OUTDATED, then creates", behavior: BehaviorHideAndNew,
			stubs: func(t *testing.T) []*stub {
				return []*stub{
					commentPage(t, "", 1, false, page1...),
					commentPage(t, "", 2, true, page2...),
					minimize(t, "/graphql", 50),
					minimize(t, "/graphql", 150),
					createComment(t, "", body, 202),
				}
			},
			want: Result{Action: Created, ID: 202, URL: url7("202"), Hidden: []int64{50, 150}},
		},
		{
			name: "delete-and-new deletes every marked comment, then creates", behavior: BehaviorDeleteAndNew,
			stubs: func(t *testing.T) []*stub {
				return []*stub{
					commentPage(t, "", 1, false, page1...),
					commentPage(t, "", 2, true, page2...),
					{method: "DELETE", path: "/repos/o/r/issues/comments/50", status: http.StatusNoContent},
					{method: "DELETE", path: "/repos/o/r/issues/comments/150", status: http.StatusNoContent},
					createComment(t, "", body, 203),
				}
			},
			want: Result{Action: Created, ID: 203, URL: url7("203"), Deleted: []int64{50, 150}},
		},
	} {
		t.Run(c.name, c.run)
	}
}

// TestEnterpriseServer: REST under /api/v3/, GraphQL at /api/graphql.
func TestEnterpriseServer(t *testing.T) {
	for _, suffix := range []string{"/api/v3/", "/api/v3"} {
		t.Run(suffix, func(t *testing.T) {
			f := newFake(t,
				commentPage(t, "/api/v3", 1, false, comment{1, body}),
				commentPage(t, "/api/v3", 2, true, comment{2, "hi"}),
				minimize(t, "/api/graphql", 1),
				createComment(t, "/api/v3", body, 9),
			)
			got, err := newTestClient(t, f.url()+suffix).UpsertPRComment(context.Background(), "o", "r", 7, body, BehaviorHideAndNew)
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != Created || got.ID != 9 || !slices.Equal(got.Hidden, []int64{1}) {
				t.Errorf("result %+v", got)
			}
		})
	}
}

func TestMarkerAndLimit(t *testing.T) {
	head := marker + "\n"
	fits := head + strings.Repeat("é", MaxBodyChars-len([]rune(head))) // 2 bytes a character: runes count
	if m, err := Marker(fits); err != nil || m != marker {
		t.Errorf("a body of exactly %d characters: %q, %v", MaxBodyChars, m, err)
	}
	_, err := Marker(fits + "x")
	if !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), "65537 characters, GitHub accepts at most 65536") {
		t.Errorf("over the limit: %v", err)
	}
	for _, b := range []string{"", "## capreport\n<!-- capreport -->", "<!---->\nx", "> <!-- capreport -->"} {
		if _, err := Marker(b); err == nil || !strings.Contains(err.Error(), "hidden marker") {
			t.Errorf("Marker(%q) = %v, want a missing-marker error", b, err)
		}
	}
	if m, err := Marker("  <!-- capreport:prod -->\r\nbody"); err != nil || m != "<!-- capreport:prod -->" {
		t.Errorf("CRLF and spaces: %q, %v", m, err)
	}
}

// TestRefusedBeforeAnyRequest: the fake has no stubs, so any request fails.
func TestRefusedBeforeAnyRequest(t *testing.T) {
	f := newFake(t)
	c := newTestClient(t, f.url())
	ctx := context.Background()
	long := marker + "\n" + strings.Repeat("x", MaxBodyChars)
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"too long", func() error {
			_, err := c.UpsertPRComment(ctx, "o", "r", 7, long, BehaviorUpdate)
			return err
		}, "body too long"},
		{"no marker", func() error { _, err := c.UpsertPRComment(ctx, "o", "r", 7, "hello", BehaviorUpdate); return err }, "hidden marker"},
		{"bad behavior", func() error { _, err := c.UpsertPRComment(ctx, "o", "r", 7, body, "replace"); return err }, `"replace" is not one of`},
		{"bad pr", func() error { _, err := c.UpsertPRComment(ctx, "o", "r", 0, body, BehaviorUpdate); return err }, "must be positive"},
		{"bad repo", func() error { _, err := c.UpsertPRComment(ctx, "o", "r/x", 7, body, BehaviorUpdate); return err }, "expected OWNER and NAME"},
		{"issue too long", func() error { _, err := c.UpsertIssue(ctx, "o", "r", "t", long, nil); return err }, "body too long"},
		{"issue without title", func() error { _, err := c.UpsertIssue(ctx, "o", "r", " ", body, nil); return err }, "needs a title"},
	} {
		if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct{ token, url, want string }{
		{"", "", "no token"},
		{"abc\n", "", "whitespace or control"},
		{"abc", "ftp://x/", "not an http(s) URL"},
		{"abc", "ghe.example.com", "not an http(s) URL"},
		{"abc", "https://u:p@ghe.example.com/api/v3/", "must not carry credentials"},
	} {
		_, err := New(Config{Token: tc.token, BaseURL: tc.url})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %q) = %v, want %q", tc.token, tc.url, err, tc.want)
		}
		if err != nil && tc.token != "" && strings.Contains(err.Error(), tc.token) {
			t.Errorf("error %q shows the token", err)
		}
	}
	c, err := New(Config{Token: "abc"})
	if err != nil || c.gh.BaseURL.String() != "https://api.github.com/" || c.graphqlURL != "https://api.github.com/graphql" {
		t.Errorf("default: %v %v", c, err)
	}
	c, err = New(Config{Token: "abc", BaseURL: "https://ghe.example.com/api/v3"})
	if err != nil || c.gh.BaseURL.String() != "https://ghe.example.com/api/v3/" || c.graphqlURL != "https://ghe.example.com/api/graphql" {
		t.Errorf("GHES: %v %v", c, err)
	}
}

// UpdatePRComment edits the latest marked comment and creates none: a pull
// request that changes nothing gets no comment, and one whose earlier
// comment is out of date gets it brought up to date.
func TestUpdatePRComment(t *testing.T) {
	for _, c := range []struct {
		name  string
		stubs func(t *testing.T) []*stub
		want  Result
	}{
		{
			name: "edits the latest marked comment",
			stubs: func(t *testing.T) []*stub {
				return []*stub{
					commentPage(t, "", 1, true, comment{3, "hi"}, comment{150, marker + "\nprevious report"}),
					{method: "PATCH", path: "/repos/o/r/issues/comments/150", check: wantBody(body),
						body: jsonOf(t, commentJSON(comment{150, body}))},
				}
			},
			want: Result{Action: Updated, ID: 150, URL: url7("150")},
		},
		{
			name: "creates nothing when no comment is marked",
			stubs: func(t *testing.T) []*stub {
				return []*stub{commentPage(t, "", 1, true, comment{3, "hi"}, comment{4, "> " + marker})}
			},
			want: Result{Action: Skipped},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, c.stubs(t)...)
			got, err := newTestClient(t, f.url()).UpdatePRComment(context.Background(), "o", "r", 7, body)
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != c.want.Action || got.ID != c.want.ID || got.URL != c.want.URL {
				t.Errorf("result %+v, want %+v", got, c.want)
			}
		})
	}
}
