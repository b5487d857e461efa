package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/capreport/capreport/internal/fakegithub"
)

func issueJSON(n int, title, body string, pr bool) map[string]any {
	m := map[string]any{
		"number": n, "title": title, "body": body, "state": "open",
		"node_id":  fmt.Sprintf("I_node%d", n),
		"html_url": fmt.Sprintf("https://github.com/o/r/issues/%d", n),
		"labels":   []any{map[string]any{"name": "capreport"}},
	}
	if pr {
		m["pull_request"] = map[string]any{"url": "https://api.github.com/repos/o/r/pulls/" + fmt.Sprint(n)}
	}
	return m
}

func issuePage(t *testing.T, page int, last bool, issues ...map[string]any) *stub {
	q := url.Values{"state": {"open"}, "labels": {"capreport,weekly"}, "per_page": {"100"},
		"sort": {"created"}, "direction": {"desc"}, "page": {""}}
	if page > 1 {
		q.Set("page", fmt.Sprint(page))
	}
	s := &stub{method: "GET", path: "/repos/o/r/issues", query: q, body: jsonOf(t, issues)}
	if !last {
		s.header = map[string]string{"Link": fmt.Sprintf(`<{{base}}/repos/o/r/issues?labels=capreport%%2Cweekly&page=%d&per_page=100&state=open>; rel="next"`, page+1)}
	}
	return s
}

func TestUpsertIssue(t *testing.T) {
	labels := []string{"capreport", "weekly"}
	title := "capreport: autoscaler report"
	others := make([]map[string]any, 0, 100)
	others = append(others, issueJSON(90, "a pull request quoting the report", body, true)) // a PR: skipped
	for i := range 99 {
		others = append(others, issueJSON(i+100, "bug", "something broke", false))
	}
	for _, tc := range []struct {
		name  string
		stubs func(t *testing.T) []*stub
		want  Result
	}{
		{"updates the marked issue, found on page 2", func(t *testing.T) []*stub {
			return []*stub{
				issuePage(t, 1, false, others...),
				issuePage(t, 2, true, issueJSON(12, title, marker+"\nlast week", false)),
				{method: "PATCH", path: "/repos/o/r/issues/12", body: jsonOf(t, issueJSON(12, title, body, false)),
					check: func(t *testing.T, got map[string]any) {
						if got["body"] != body || got["title"] != title || got["labels"] != nil {
							t.Errorf("edit %v", got)
						}
					}},
			}
		}, Result{Action: Updated, ID: 12, URL: "https://github.com/o/r/issues/12"}},
		{"unchanged", func(t *testing.T) []*stub {
			return []*stub{issuePage(t, 1, true, issueJSON(12, title, body, false))}
		}, Result{Action: Unchanged, ID: 12, URL: "https://github.com/o/r/issues/12"}},
		{"creates with the labels", func(t *testing.T) []*stub {
			return []*stub{
				issuePage(t, 1, true, others...),
				{method: "POST", path: "/repos/o/r/issues", status: http.StatusCreated, body: jsonOf(t, issueJSON(300, title, body, false)),
					check: func(t *testing.T, got map[string]any) {
						if got["body"] != body || got["title"] != title || fmt.Sprint(got["labels"]) != "[capreport weekly]" {
							t.Errorf("create %v", got)
						}
					}},
			}
		}, Result{Action: Created, ID: 300, URL: "https://github.com/o/r/issues/300"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.stubs(t)...)
			got, err := newTestClient(t, f.url()).UpsertIssue(context.Background(), "o", "r", title, body, labels)
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != tc.want.Action || got.ID != tc.want.ID || got.URL != tc.want.URL {
				t.Errorf("result %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestUpsertIssueNotFound(t *testing.T) {
	f := newFake(t, &stub{method: "GET", path: "/repos/o/r/issues", status: http.StatusNotFound, body: `{"message":"Not Found"}`})
	_, err := newTestClient(t, f.url()).UpsertIssue(context.Background(), "o", "r", "t", body, []string{"capreport", "weekly"})
	checkErr(t, err, ErrNotFound, "list open issues of o/r: repository or pull request not found")
}

// TestUpsertIssueThroughServerErrors: a create that fails with a 502 is
// looked for before it is sent again, so one issue results either way.
func TestUpsertIssueThroughServerErrors(t *testing.T) {
	f := fakegithub.New(t, fakegithub.Config{Owner: "o", Repo: "r",
		Tokens: map[string]fakegithub.Permissions{testToken: {Issues: "write"}}})
	c, err := New(Config{Token: testToken, BaseURL: f.URL, Retry: noWait(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	f.FailNext("POST", "/repos/o/r/issues", http.StatusBadGateway, nil, `{"message":"Server Error"}`)
	res, err := c.UpsertIssue(context.Background(), "o", "r", "Report", body, []string{"capreport"})
	if err != nil || res.Action != Created || len(f.Issues()) != 1 {
		t.Fatalf("%+v, %v, %d issues", res, err, len(f.Issues()))
	}
	var posts int
	for _, r := range f.Requests() {
		if r.Method == "POST" {
			posts++
		}
	}
	if posts != 2 {
		t.Errorf("%d creates sent, want the failed one and one more", posts)
	}
}
