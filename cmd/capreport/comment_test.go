package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"
)

const ghToken = "ghs_clitoken42"

// ghStub answers one request once; every stub must be used.
type ghStub struct {
	method, path string
	status       int
	body         string
	wantBody     map[string]any // fields the request's JSON must carry
	used         bool
}

// fakeAPI is an httptest server speaking like the GitHub REST API; any
// request no stub expects fails the test.
func fakeAPI(t *testing.T, stubs ...*ghStub) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "Bearer "+ghToken {
			t.Errorf("%s %s: Authorization %q", r.Method, r.URL.Path, a)
		}
		mu.Lock()
		var s *ghStub
		for _, c := range stubs {
			if !c.used && c.method == r.Method && c.path == r.URL.Path {
				s, c.used = c, true
				break
			}
		}
		mu.Unlock()
		if s == nil {
			t.Errorf("unexpected request %s %s", r.Method, r.URL)
			http.Error(w, `{"message":"unexpected"}`, http.StatusInternalServerError)
			return
		}
		if s.wantBody != nil {
			var got map[string]any
			raw, _ := io.ReadAll(r.Body)
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Errorf("%s %s: %v", r.Method, r.URL.Path, err)
			}
			for k, v := range s.wantBody {
				g, _ := json.Marshal(got[k])
				w, _ := json.Marshal(v)
				if !bytes.Equal(g, w) {
					t.Errorf("%s %s: %s = %s, want %s", r.Method, r.URL.Path, k, g, w)
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if s.status != 0 {
			w.WriteHeader(s.status)
		}
		_, _ = io.WriteString(w, s.body)
	}))
	t.Cleanup(func() {
		srv.Close()
		for _, s := range stubs {
			if !s.used {
				t.Errorf("expected request not made: %s %s", s.method, s.path)
			}
		}
	})
	return srv
}

// runGitHubCmd runs `capreport comment|issue ...` with an injected
// environment and stdin, mapping the outcome as run() does.
func runGitHubCmd(t *testing.T, env map[string]string, stdin string, args ...string) (code int, out, errOut string) {
	t.Helper()
	var o, e bytes.Buffer
	s := &streams{In: strings.NewReader(stdin), Out: &o, ErrOut: &e}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	root := &cobra.Command{Use: "capreport", SilenceUsage: true, SilenceErrors: true}
	root.SetOut(&o)
	root.SetErr(&e)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	root.AddCommand(newCommentCmdF(s, lookup, nil), newIssueCmdF(s, lookup, nil))
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err != nil {
		e.WriteString("capreport: " + err.Error() + "\n")
	}
	if strings.Contains(o.String()+e.String(), ghToken) {
		t.Errorf("the token was printed:\n%s\n%s", o.String(), e.String())
	}
	return exitCode(err), o.String(), e.String()
}

const cliBody = "<!-- capreport -->\n## capreport: 1 autoscaler changed\n"

func TestCommentUpdatesOnEnterpriseFromEnvironment(t *testing.T) {
	srv := fakeAPI(t,
		&ghStub{method: "GET", path: "/api/v3/repos/acme/deploy/issues/42/comments",
			body: `[{"id": 4, "node_id": "IC_4", "body": "nice"}, {"id": 5, "node_id": "IC_5", "body": "<!-- capreport -->\nold"}]`},
		&ghStub{method: "PATCH", path: "/api/v3/repos/acme/deploy/issues/comments/5", wantBody: map[string]any{"body": cliBody},
			body: `{"id": 5, "html_url": "https://ghe.example.com/acme/deploy/pull/42#issuecomment-5"}`},
	)
	env := map[string]string{"GITHUB_TOKEN": ghToken, "GITHUB_REPOSITORY": "acme/deploy", "GITHUB_API_URL": srv.URL + "/api/v3"}
	code, out, errOut := runGitHubCmd(t, env, cliBody, "comment", "--pr", "42")
	if code != exitOK || out != "https://ghe.example.com/acme/deploy/pull/42#issuecomment-5\n" ||
		errOut != "updated comment 5 on acme/deploy#42\n" {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

func TestCommentDeleteAndNewWithFlags(t *testing.T) {
	srv := fakeAPI(t,
		&ghStub{method: "GET", path: "/repos/o/r/issues/7/comments",
			body: `[{"id": 5, "node_id": "IC_5", "body": "<!-- capreport -->\nold"}]`},
		&ghStub{method: "DELETE", path: "/repos/o/r/issues/comments/5", status: http.StatusNoContent},
		&ghStub{method: "POST", path: "/repos/o/r/issues/7/comments", status: http.StatusCreated,
			wantBody: map[string]any{"body": cliBody}, body: `{"id": 6, "html_url": "https://github.com/o/r/pull/7#issuecomment-6"}`},
	)
	// The flags win over GITHUB_REPOSITORY and GITHUB_API_URL (which
	// points nowhere); GH_TOKEN serves when GITHUB_TOKEN is unset.
	env := map[string]string{"GH_TOKEN": ghToken, "GITHUB_REPOSITORY": "other/repo", "GITHUB_API_URL": "http://127.0.0.1:1/api/v3/"}
	file := writeTemp(t, "comment.md", cliBody)
	code, out, errOut := runGitHubCmd(t, env, "", "comment", "--repo", "o/r", "--pr", "7", "--body-file", file,
		"--behavior", "delete-and-new", "--github-api-url", srv.URL)
	if code != exitOK || out != "https://github.com/o/r/pull/7#issuecomment-6\n" ||
		errOut != "deleted 1 earlier comment(s) on o/r#7\ncreated comment 6 on o/r#7\n" {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

func TestIssueCreates(t *testing.T) {
	srv := fakeAPI(t,
		&ghStub{method: "GET", path: "/repos/o/r/issues", body: `[{"number": 3, "title": "bug", "body": "broken"}]`},
		&ghStub{method: "POST", path: "/repos/o/r/issues", status: http.StatusCreated,
			wantBody: map[string]any{"title": "Autoscaler report", "body": cliBody, "labels": []string{"capreport", "weekly"}},
			body:     `{"number": 9, "html_url": "https://github.com/o/r/issues/9"}`},
	)
	env := map[string]string{"GITHUB_TOKEN": ghToken, "GITHUB_REPOSITORY": "o/r"}
	code, out, errOut := runGitHubCmd(t, env, cliBody, "issue", "--title", "Autoscaler report",
		"--label", "capreport", "--label", "weekly", "--github-api-url", srv.URL)
	if code != exitOK || out != "https://github.com/o/r/issues/9\n" || errOut != "created issue o/r#9\n" {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

func TestCommentAPIErrors(t *testing.T) {
	srv := fakeAPI(t, &ghStub{method: "GET", path: "/repos/o/r/issues/7/comments", status: http.StatusUnauthorized,
		body: `{"message": "Bad credentials"}`})
	env := map[string]string{"GITHUB_TOKEN": ghToken}
	code, _, errOut := runGitHubCmd(t, env, cliBody, "comment", "--repo", "o/r", "--pr", "7", "--github-api-url", srv.URL)
	if code != exitError || errOut != "capreport: list comments on o/r#7: the token was refused (check GITHUB_TOKEN)\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestGitHubUsageErrors: each is exit 2 before any request (the fake
// expects none).
func TestGitHubUsageErrors(t *testing.T) {
	srv := fakeAPI(t)
	full := map[string]string{"GITHUB_TOKEN": ghToken, "GITHUB_REPOSITORY": "o/r", "GITHUB_API_URL": srv.URL}
	noToken := map[string]string{"GITHUB_REPOSITORY": "o/r", "GITHUB_API_URL": srv.URL}
	long := cliBody + strings.Repeat("x", 65536)
	for _, c := range []struct {
		name   string
		env    map[string]string
		stdin  string
		args   []string
		stderr string
	}{
		{"no token", noToken, cliBody, []string{"comment", "--pr", "7"}, "capreport: no GitHub token: set GITHUB_TOKEN (or GH_TOKEN)\n"},
		{"no token for issue", noToken, cliBody, []string{"issue", "--title", "t"}, "capreport: no GitHub token: set GITHUB_TOKEN (or GH_TOKEN)\n"},
		{"no repository", map[string]string{"GITHUB_TOKEN": ghToken}, cliBody, []string{"comment", "--pr", "7"}, "--repo: the repository is required (OWNER/NAME, or set GITHUB_REPOSITORY)"},
		{"bad repository", full, cliBody, []string{"comment", "--pr", "7", "--repo", "acme"}, `--repo: "acme" is not OWNER/NAME`},
		{"no pr", full, cliBody, []string{"comment"}, "--pr: the pull request number is required"},
		{"pr not a number", full, cliBody, []string{"comment", "--pr", "x"}, `invalid argument "x" for "--pr"`},
		{"bad behavior", full, cliBody, []string{"comment", "--pr", "7", "--behavior", "replace"}, `--behavior: "replace" is not one of update, new, hide-and-new, delete-and-new`},
		{"missing body file", full, "", []string{"comment", "--pr", "7", "--body-file", "/nonexistent/c.md"}, "--body-file: /nonexistent/c.md: no such file or directory"},
		{"empty body", full, "", []string{"comment", "--pr", "7"}, "--body-file: stdin is empty"},
		{"no marker", full, "## report\n", []string{"comment", "--pr", "7"}, "--body-file: stdin: the body's first line must be a hidden marker such as <!-- capreport -->"},
		{"too long", full, long, []string{"comment", "--pr", "7"}, "--body-file: stdin: body too long: 65590 characters, GitHub accepts at most 65536"},
		{"far too long", full, strings.Repeat("x", 4*65536+1), []string{"issue", "--title", "t"}, "--body-file stdin: over 262144 bytes"},
		{"no title", full, cliBody, []string{"issue"}, "--title: the issue's title is required"},
		{"positional argument", full, cliBody, []string{"comment", "--pr", "7", "extra"}, `unknown command "extra"`},
	} {
		code, out, errOut := runGitHubCmd(t, c.env, c.stdin, c.args...)
		if code != exitError || !strings.Contains(errOut, c.stderr) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.name, code, out, errOut, c.stderr)
		}
	}
}

// TestDryRun needs no token and makes no request.
func TestDryRun(t *testing.T) {
	srv := fakeAPI(t)
	env := map[string]string{"GITHUB_API_URL": srv.URL + "/api/v3/"}
	code, out, errOut := runGitHubCmd(t, env, cliBody, "comment", "--repo", "o/r", "--pr", "7", "--behavior", "hide-and-new", "--dry-run")
	want := "dry run: would post a comment on o/r#7 (behavior hide-and-new, marker <!-- capreport -->, 54 characters) to " + srv.URL + "/api/v3/\n"
	if code != exitOK || out != cliBody || errOut != want {
		t.Errorf("exit %d\nstdout %q\nstderr %q\nwant   %q", code, out, errOut, want)
	}
	code, out, errOut = runGitHubCmd(t, nil, cliBody, "issue", "--repo", "o/r", "--title", "Report", "--dry-run")
	want = `dry run: would create or update the open issue "Report" labelled capreport in o/r (marker <!-- capreport -->, 54 characters) at https://api.github.com/` + "\n"
	if code != exitOK || out != cliBody || errOut != want {
		t.Errorf("exit %d\nstdout %q\nstderr %q\nwant   %q", code, out, errOut, want)
	}
}

// TestGitHubFlags checks parsing alone, through runF.
func TestGitHubFlags(t *testing.T) {
	s := &streams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	var co *commentOptions
	cmd := newCommentCmdF(s, nil, func(_ context.Context, o *commentOptions) error { co = o; return nil })
	cmd.SetArgs([]string{"--pr", "3"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if co.pr != 3 || co.behavior != "update" || co.bodyFile != "-" || co.repo != "" || co.apiURL != "" || co.dryRun {
		t.Errorf("comment defaults %+v", co)
	}
	var iopts *issueOptions
	cmd = newIssueCmdF(s, nil, func(_ context.Context, o *issueOptions) error { iopts = o; return nil })
	cmd.SetArgs([]string{"--title", "T", "--label", "a,b", "--label", "c", "--body-file", filepath.Join("x", "r.md"), "--repo", "o/r"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if iopts.title != "T" || !slices.Equal(iopts.labels, []string{"a", "b", "c"}) || iopts.bodyFile != filepath.Join("x", "r.md") || iopts.repo != "o/r" {
		t.Errorf("issue flags %+v", iopts)
	}
	cmd = newIssueCmdF(s, nil, func(_ context.Context, o *issueOptions) error { iopts = o; return nil })
	cmd.SetArgs([]string{"--title", "T"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(iopts.labels, []string{"capreport"}) {
		t.Errorf("default labels %v", iopts.labels)
	}
}
