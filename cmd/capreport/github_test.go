package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/fakegithub"
	"github.com/capreport/capreport/internal/genrepo"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/report"
	ghreport "github.com/capreport/capreport/report/github"
)

const (
	writeToken = "ghs_writeTOKEN0123456789"
	readToken  = "ghs_readonlyTOKEN98765"
)

// reportFiles are JSON reports of the diff acceptance manifests, written
// once for the package: base (target 50 %, window 300 s), head (80 %, 60 s)
// and head2 (70 %, 60 s), so that a second pull-request push changes the
// comment.
var reportFiles = sync.OnceValues(func() (map[string]string, error) {
	dir, err := os.MkdirTemp("", "capreport-github-test-")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, p := range map[string][2]string{"base": {"50", "300"}, "head": {"80", "60"}, "head2": {"70", "60"}} {
		repo := filepath.Join(dir, name)
		if err := writeManifestFiles(repo, p[0], p[1]); err != nil {
			return nil, err
		}
		var o, e bytes.Buffer
		if code := run([]string{filepath.Join(repo, "deploy"), "--format", "json"}, &cmdutil.IOStreams{Out: &o, ErrOut: &e}); code == cmdutil.ExitError {
			return nil, &cmdutil.UsageError{Msg: "capreport " + name + ": " + e.String()}
		}
		f := filepath.Join(dir, name+".json")
		if err := os.WriteFile(f, o.Bytes(), 0o644); err != nil {
			return nil, err
		}
		out[name] = f
	}
	return out, nil
})

func reports(t *testing.T) map[string]string {
	t.Helper()
	r, err := reportFiles()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// writeManifestFiles is writeManifests without a *testing.T, for the
// package-wide fixtures.
func writeManifestFiles(dir, target, window string) error {
	d := filepath.Join(dir, "deploy")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	for name, body := range map[string]string{
		"web.yaml":    strings.Replace(webYAML, "TARGET", target, 1),
		"orders.yaml": strings.Replace(ordersYAML, "WINDOW", window, 1),
		"static.yaml": staticYAML,
	} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ghRun is one in-process run of a posting command against a fake GitHub:
// its environment, what it printed, the summary and outputs it wrote.
type ghRun struct {
	code          int
	out, errOut   string
	summary, outs string
}

// ghEnv is the environment GitHub Actions gives a step, pointing at fake.
func ghEnv(t *testing.T, fake *fakegithub.Server, token string, event any) map[string]string {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{
		"GITHUB_REPOSITORY":   "o/r",
		"GITHUB_API_URL":      fake.URL,
		"GITHUB_GRAPHQL_URL":  fake.GraphQLURL,
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_RUN_ID":       "4242",
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
	}
	if token != "" {
		env["GITHUB_TOKEN"] = token
	}
	if event != nil {
		b, err := json.Marshal(event)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "event.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		env["GITHUB_EVENT_PATH"] = p
	}
	return env
}

// runGitHub runs `capreport args...` with the GitHub commands built on env
// and a retry policy that records instead of sleeping. The step's summary
// and output files are truncated first, as each Actions step gets its own.
func runGitHub(t *testing.T, env map[string]string, args ...string) ghRun {
	t.Helper()
	for _, k := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"} {
		if p := env[k]; p != "" {
			_ = os.Remove(p)
		}
	}
	var o, e bytes.Buffer
	s := &cmdutil.IOStreams{Out: &o, ErrOut: &e}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	deps := cmdutil.GHDeps{Env: lookup, Retry: ghreport.Retry{Sleep: func(context.Context, time.Duration) error { return nil }}}
	f := newFactory(s)
	f.GHDeps = deps
	root := newRootCmd(f, nil)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err != nil {
		e.WriteString("capreport: " + err.Error() + "\n")
	}
	r := ghRun{code: cmdutil.ExitCode(err), out: o.String(), errOut: e.String()}
	if b, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"]); err == nil {
		r.summary = string(b)
	}
	if b, err := os.ReadFile(env["GITHUB_OUTPUT"]); err == nil {
		r.outs = string(b)
	}
	for _, tok := range []string{writeToken, readToken} {
		if strings.Contains(r.out+r.errOut+r.summary+r.outs, tok) {
			t.Errorf("the token was printed or written:\n%s\n%s", r.out, r.errOut)
		}
	}
	return r
}

// prEvent is a pull_request event payload for PR 7 of o/r.
func prEvent(headRepo string) map[string]any {
	return map[string]any{
		"number": 7,
		"pull_request": map[string]any{
			"number": 7,
			"head":   map[string]any{"sha": "0123456789abcdef0123456789abcdef01234567", "ref": "feature", "repo": map[string]any{"full_name": headRepo}},
			"base":   map[string]any{"sha": "fedcba9876543210fedcba9876543210fedcba98", "ref": "main", "repo": map[string]any{"full_name": "o/r"}},
		},
		"repository": map[string]any{"full_name": "o/r"},
	}
}

func newFakeGitHub(t *testing.T, contents string) *fakegithub.Server {
	return fakegithub.New(t, fakegithub.Config{Owner: "o", Repo: "r",
		Tokens: map[string]fakegithub.Permissions{
			writeToken: {PullRequests: "write", Issues: "write", Contents: contents},
			readToken:  {PullRequests: "read", Issues: "read", Contents: "read"},
		},
		PullRequests: []fakegithub.PullRequest{
			{Number: 7, HeadOwner: "o", HeadRepo: "r", HeadRef: "feature", HeadSHA: "0123456789abcdef0123456789abcdef01234567", BaseRef: "main"},
			{Number: 8, HeadOwner: "fork", HeadRepo: "r", HeadRef: "main", HeadSHA: "89abcdef0123456789abcdef0123456789abcdef", BaseRef: "main"},
		},
	})
}

// checkTokenOnlyInAuthorization: every request carried the token in its
// Authorization header and nowhere else.
func checkTokenOnlyInAuthorization(t *testing.T, fake *fakegithub.Server) {
	t.Helper()
	for _, r := range fake.Requests() {
		for k, vs := range r.Header {
			for _, v := range vs {
				if k != "Authorization" && (strings.Contains(v, writeToken) || strings.Contains(v, readToken)) {
					t.Errorf("%s %s: the token is in header %s", r.Method, r.Path, k)
				}
			}
		}
		for _, tok := range []string{writeToken, readToken} {
			if strings.Contains(r.Path+"?"+r.RawQuery, tok) || bytes.Contains(r.Body, []byte(tok)) {
				t.Errorf("%s %s: the token is in the URL or body", r.Method, r.Path)
			}
		}
		if a := r.Header.Get("Authorization"); a != "Bearer "+writeToken && a != "Bearer "+readToken {
			t.Errorf("%s %s: Authorization %q", r.Method, r.Path, a)
		}
	}
}

func marked(cs []fakegithub.Comment) []fakegithub.Comment {
	var out []fakegithub.Comment
	for _, c := range cs {
		if strings.HasPrefix(c.Body, report.Marker+"\n") {
			out = append(out, c)
		}
	}
	return out
}

// TestCommentLifecycle is the issue's acceptance path: among 150 other
// comments (two pages), a first run creates the comment through one 502, a
// second identical run writes nothing, a changed report updates the same
// comment, hide-and-new minimizes it and adds one, delete-and-new removes
// both and adds one.
func TestCommentLifecycle(t *testing.T) {
	rep := reports(t)
	fake := newFakeGitHub(t, "read")
	for i := 0; i < 150; i++ {
		fake.AddComment(7, "LGTM", "reviewer")
	}
	env := ghEnv(t, fake, writeToken, prEvent("o/r"))
	post := func(head string, extra ...string) ghRun {
		t.Helper()
		return runGitHub(t, env, append([]string{"comment", "github", "--report", head, "--base", rep["base"],
			"--github-output", env["GITHUB_OUTPUT"]}, extra...)...)
	}

	// 1. Created, through a 502 on the write.
	fake.FailNext("POST", "/issues/7/comments", http.StatusBadGateway, nil, `{"message":"Server Error"}`)
	r := post(rep["head"])
	if r.code != cmdutil.ExitOK {
		t.Fatalf("first run: exit %d\n%s", r.code, r.errOut)
	}
	cs := marked(fake.Comments(7))
	if len(cs) != 1 {
		t.Fatalf("%d marked comments after the first run, want 1", len(cs))
	}
	first := cs[0]
	for _, want := range []string{webID, ordersID, "the run's artifacts](https://github.com/o/r/actions/runs/4242)"} {
		if !strings.Contains(first.Body, want) {
			t.Errorf("the comment lacks %q:\n%s", want, first.Body)
		}
	}
	if strings.Contains(first.Body, staticID) {
		t.Errorf("the comment lists the unchanged %s", staticID)
	}
	if !strings.Contains(r.errOut, "created comment") || !strings.HasPrefix(r.out, fake.ServerURL+"o/r/pull/7#issuecomment-") {
		t.Errorf("stdout %q stderr %q", r.out, r.errOut)
	}
	if !strings.Contains(r.outs, "verdict=fail\n") || !strings.Contains(r.outs, "report="+rep["head"]+"\n") ||
		!strings.Contains(r.outs, "comment-url="+strings.TrimSpace(r.out)+"\n") {
		t.Errorf("outputs:\n%s", r.outs)
	}
	// The summary has the diff and then every autoscaler of the head.
	if !strings.Contains(r.summary, webID) || !strings.Contains(r.summary, staticID) || !strings.Contains(r.summary, "every autoscaler of the head") {
		t.Errorf("summary:\n%.2000s", r.summary)
	}

	// 2. The same report again: nothing written.
	writes := len(fake.Writes())
	if r = post(rep["head"]); r.code != cmdutil.ExitOK || !strings.Contains(r.errOut, "unchanged: comment") {
		t.Fatalf("second run: exit %d\n%s", r.code, r.errOut)
	}
	if n := len(fake.Writes()); n != writes {
		t.Errorf("an identical run made %d write(s)", n-writes)
	}

	// 3. A new push: the same comment, edited.
	if r = post(rep["head2"]); r.code != cmdutil.ExitOK {
		t.Fatalf("third run: exit %d\n%s", r.code, r.errOut)
	}
	cs = marked(fake.Comments(7))
	if len(cs) != 1 || cs[0].ID != first.ID || cs[0].Body == first.Body || !strings.Contains(r.errOut, "updated comment") {
		t.Errorf("after a changed report: %d comment(s), id %d (first %d)\n%s", len(cs), cs[0].ID, first.ID, r.errOut)
	}

	// 4. hide-and-new: the old one minimized as outdated, a new one below.
	if r = post(rep["head"], "--behavior", "hide-and-new"); r.code != cmdutil.ExitOK {
		t.Fatalf("hide-and-new: exit %d\n%s", r.code, r.errOut)
	}
	cs = marked(fake.Comments(7))
	if len(cs) != 2 || !cs[0].Minimized || cs[0].ID != first.ID || cs[1].Minimized {
		t.Errorf("after hide-and-new: %+v", cs)
	}

	// 5. delete-and-new: both gone, one new.
	if r = post(rep["head"], "--behavior", "delete-and-new"); r.code != cmdutil.ExitOK {
		t.Fatalf("delete-and-new: exit %d\n%s", r.code, r.errOut)
	}
	cs = marked(fake.Comments(7))
	if len(cs) != 1 || cs[0].ID == first.ID || cs[0].Minimized {
		t.Errorf("after delete-and-new: %+v", cs)
	}
	if n := len(fake.Comments(7)); n != 151 {
		t.Errorf("%d comments in all, want the 150 others and capreport's", n)
	}
	checkTokenOnlyInAuthorization(t, fake)
}

// TestCommentWhen: a pull request that changes no autoscaler gets no
// comment (--when changed, the default), and when it had one from an
// earlier push, that comment is updated to say nothing changes any more
// rather than left stale; always comments anyway; update-only never
// creates, only keeps an earlier comment current.
func TestCommentWhen(t *testing.T) {
	rep := reports(t)
	fake := newFakeGitHub(t, "read")
	env := ghEnv(t, fake, writeToken, prEvent("o/r"))
	post := func(head string, extra ...string) ghRun {
		t.Helper()
		r := runGitHub(t, env, append([]string{"comment", "github", "--report", head, "--base", rep["base"],
			"--github-output", env["GITHUB_OUTPUT"]}, extra...)...)
		if r.code != cmdutil.ExitOK {
			t.Fatalf("%v: exit %d\n%s", extra, r.code, r.errOut)
		}
		return r
	}

	// Nothing changed, no earlier comment: nothing written, and no URL.
	r := post(rep["base"])
	if len(fake.Writes()) != 0 || !strings.Contains(r.errOut, "no autoscaler changed against the base, and there is no earlier comment") ||
		strings.Contains(r.outs, "comment-url=") || !strings.Contains(r.summary, "No autoscaler changed") {
		t.Errorf("no change: %d write(s)\n%s\n%s", len(fake.Writes()), r.errOut, r.outs)
	}
	// update-only creates none, even for a change.
	if r = post(rep["head"], "--when", "update-only"); len(fake.Writes()) != 0 || !strings.Contains(r.errOut, "update-only creates none") {
		t.Errorf("update-only: %d write(s)\n%s", len(fake.Writes()), r.errOut)
	}
	// always creates, even for no change.
	if r = post(rep["base"], "--when", "always"); len(marked(fake.Comments(7))) != 1 || !strings.Contains(marked(fake.Comments(7))[0].Body, "No autoscaler changed") {
		t.Errorf("always: %+v\n%s", marked(fake.Comments(7)), r.errOut)
	}
	// A change: the comment is updated to it (changed, the default).
	first := marked(fake.Comments(7))[0]
	post(rep["head"])
	if cs := marked(fake.Comments(7)); len(cs) != 1 || cs[0].ID != first.ID || !strings.Contains(cs[0].Body, webID) {
		t.Errorf("a change: %+v", cs)
	}
	// Reverted: the earlier comment now says nothing changes, not the old news.
	post(rep["base"])
	if cs := marked(fake.Comments(7)); len(cs) != 1 || strings.Contains(cs[0].Body, webID) || !strings.Contains(cs[0].Body, "No autoscaler changed") {
		t.Errorf("reverted: %+v", cs)
	}
	// update-only keeps it current.
	post(rep["head2"], "--when", "update-only")
	if cs := marked(fake.Comments(7)); len(cs) != 1 || !strings.Contains(cs[0].Body, webID) {
		t.Errorf("update-only with a comment: %+v", cs)
	}
	if r := runGitHub(t, env, "comment", "github", "--report", rep["head"], "--when", "sometimes"); r.code != cmdutil.ExitError ||
		!strings.Contains(r.errOut, `--when: "sometimes" is not changed, always or update-only`) {
		t.Errorf("bad --when: exit %d\n%s", r.code, r.errOut)
	}
	checkTokenOnlyInAuthorization(t, fake)
}

// TestCommentReadOnlyToken: a fork's read-only token cannot comment; the
// message names the permission, the exit is non-zero, and the report still
// reached the job summary and the outputs.
func TestCommentReadOnlyToken(t *testing.T) {
	rep := reports(t)
	fake := newFakeGitHub(t, "read")
	env := ghEnv(t, fake, readToken, prEvent("o/r"))
	r := runGitHub(t, env, "comment", "github", "--report", rep["head"], "--base", rep["base"], "--github-output", env["GITHUB_OUTPUT"])
	if r.code != cmdutil.ExitError || !strings.Contains(r.errOut, "create comment on o/r#7: the token lacks the permission pull-requests: write") {
		t.Errorf("exit %d\n%s", r.code, r.errOut)
	}
	if !strings.Contains(r.summary, webID) || !strings.Contains(r.outs, "verdict=fail") {
		t.Errorf("summary or outputs missing:\n%.500s\n%s", r.summary, r.outs)
	}
	if len(fake.Comments(7)) != 0 {
		t.Error("a comment was created")
	}
	checkTokenOnlyInAuthorization(t, fake)
}

// TestCommentRefusedByServerLimit: GitHub's 422 for a too long body is
// reported as such (the fake's limit is lowered so the real renderer's
// body trips it).
func TestCommentRefusedByServerLimit(t *testing.T) {
	rep := reports(t)
	fake := fakegithub.New(t, fakegithub.Config{Owner: "o", Repo: "r", MaxBodyChars: 500,
		Tokens:       map[string]fakegithub.Permissions{writeToken: {PullRequests: "write"}},
		PullRequests: []fakegithub.PullRequest{{Number: 7, HeadOwner: "o", HeadRepo: "r", HeadRef: "f", HeadSHA: "abc", BaseRef: "main"}}})
	env := ghEnv(t, fake, writeToken, nil)
	r := runGitHub(t, env, "comment", "github", "--report", rep["head"], "--pr", "7")
	if r.code != cmdutil.ExitError || !strings.Contains(r.errOut, "GitHub answered 422: Validation Failed; body is too long (maximum is 500 characters)") {
		t.Errorf("exit %d\n%s", r.code, r.errOut)
	}
}

// TestCommentThreeHundredAutoscalers: a large repository's comment stays
// under GitHub's limit and says what was cut; the fake (which enforces
// 65,536 characters) accepts it.
func TestCommentThreeHundredAutoscalers(t *testing.T) {
	testutil.SkipIfShort(t)
	repo := t.TempDir()
	if err := genrepo.Write(repo, 300); err != nil {
		t.Fatal(err)
	}
	code, js, errOut := runArgs(t, repo, "--format", "json")
	if code == cmdutil.ExitError {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	head := writeTemp(t, "head.json", js)
	empty, err := report.JSON(contract.Report{SchemaVersion: contract.SchemaVersion, Root: "base"}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := writeTemp(t, "base.json", string(empty))
	fake := newFakeGitHub(t, "read")
	for _, args := range [][]string{
		{"--report", head},                 // the repository-wide report
		{"--report", head, "--base", base}, // every autoscaler added
	} {
		env := ghEnv(t, fake, writeToken, prEvent("o/r"))
		r := runGitHub(t, env, append([]string{"comment", "github", "--behavior", "new"}, args...)...)
		if r.code != cmdutil.ExitOK {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.errOut)
		}
		cs := fake.Comments(7)
		body := cs[len(cs)-1].Body
		if n := utf8.RuneCountInString(body); n > ghreport.MaxBodyChars {
			t.Errorf("%v: %d characters", args, n)
		}
		if !regexp.MustCompile(`Cut to fit GitHub's 65,536-character comment limit:\*\* the details of \d+ autoscalers`).MatchString(body) {
			t.Errorf("%v: the comment does not say what was cut:\n%.1500s", args, body)
		}
		if !strings.Contains(body, "300") {
			t.Errorf("%v: the headline does not count 300 autoscalers:\n%.600s", args, body)
		}
		if len(r.summary) > 1<<20 || len(r.summary) <= len(body) {
			t.Errorf("%v: summary of %d bytes (comment %d)", args, len(r.summary), len(body))
		}
	}
}

// TestCommentFromWorkflowRun: the second stage of the fork-safe workflow
// finds the pull request from the run's head through the API, and does
// not publish images for a fork.
func TestCommentFromWorkflowRun(t *testing.T) {
	rep := reports(t)
	fake := newFakeGitHub(t, "write")
	ev := map[string]any{"workflow_run": map[string]any{
		"id": 99, "html_url": "https://github.com/o/r/actions/runs/99", "event": "pull_request",
		"head_sha": "89abcdef0123456789abcdef0123456789abcdef", "head_branch": "main",
		"head_repository": map[string]any{"full_name": "fork/r", "owner": map[string]any{"login": "fork"}},
		"repository":      map[string]any{"full_name": "o/r"},
	}}
	env := ghEnv(t, fake, writeToken, ev)
	r := runGitHub(t, env, "comment", "github", "--report", rep["head"], "--base", rep["base"], "--images", "branch")
	if r.code != cmdutil.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.errOut)
	}
	cs := marked(fake.Comments(8))
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "](https://github.com/o/r/actions/runs/99)") {
		t.Errorf("comments on #8: %+v", cs)
	}
	if !strings.Contains(r.errOut, "same-repository pull requests") {
		t.Errorf("no notice about images on a fork:\n%s", r.errOut)
	}
	if _, ok := fake.Ref("capreport-images"); ok {
		t.Error("a fork's run wrote the images branch")
	}

	// A run whose head moved on finds no pull request and says so.
	ev["workflow_run"].(map[string]any)["head_sha"] = "ffffffffffffffffffffffffffffffffffffffff"
	env = ghEnv(t, fake, writeToken, ev)
	r = runGitHub(t, env, "comment", "github", "--report", rep["head"])
	if r.code != cmdutil.ExitError || !strings.Contains(r.errOut, "no open pull request of o/r has the head fork:main") {
		t.Errorf("exit %d\n%s", r.code, r.errOut)
	}
	checkTokenOnlyInAuthorization(t, fake)
}

// TestCommentImagesBranch: a same-repository pull request gets its plots
// committed to the images branch and shown from the commit.
func TestCommentImagesBranch(t *testing.T) {
	rep := reports(t)
	fake := newFakeGitHub(t, "write")
	env := ghEnv(t, fake, writeToken, prEvent("o/r"))
	r := runGitHub(t, env, "comment", "github", "--report", rep["head"], "--base", rep["base"], "--images", "branch")
	if r.code != cmdutil.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.errOut)
	}
	tip, ok := fake.Ref("capreport-images")
	if !ok {
		t.Fatal("no images branch")
	}
	body := marked(fake.Comments(7))[0].Body
	links := regexp.MustCompile(`!\[[^\]]*\]\((https://github\.com/o/r/raw/([0-9a-f]+)/(pr-7/0123456789ab/[^)]+\.png))\)`).FindAllStringSubmatch(body, -1)
	if len(links) < 2 {
		t.Fatalf("%d image links in the comment:\n%s", len(links), body)
	}
	for _, l := range links {
		if l[2] != tip {
			t.Errorf("link %s names commit %s, the branch is at %s", l[1], l[2], tip)
		}
		png, ok := fake.File("capreport-images", l[3])
		if !ok || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG on the branch", l[3])
		}
	}
	// A second push adds a commit on top; the first one's files stay.
	if r = runGitHub(t, env, "comment", "github", "--report", rep["head2"], "--base", rep["base"], "--images", "branch"); r.code != cmdutil.ExitOK {
		t.Fatalf("second run: exit %d\n%s", r.code, r.errOut)
	}
	if tip2, _ := fake.Ref("capreport-images"); tip2 == tip {
		t.Error("the second run did not commit")
	}
	if _, ok := fake.File("capreport-images", links[0][3]); !ok {
		t.Error("the second run lost the first run's images")
	}
	// Without contents: write, the comment still goes out with Mermaid.
	fake2 := newFakeGitHub(t, "read")
	env2 := ghEnv(t, fake2, writeToken, prEvent("o/r"))
	r = runGitHub(t, env2, "comment", "github", "--report", rep["head"], "--base", rep["base"], "--images", "branch")
	if r.code != cmdutil.ExitOK || !strings.Contains(r.errOut, "plots not published") || !strings.Contains(r.errOut, "contents: write") {
		t.Errorf("exit %d\n%s", r.code, r.errOut)
	}
	if cs := marked(fake2.Comments(7)); len(cs) != 1 || strings.Contains(cs[0].Body, "![") {
		t.Errorf("comments %+v", cs)
	}
	checkTokenOnlyInAuthorization(t, fake)
}

// TestIssueLifecycle: the scheduled report is one open issue found by its
// label and marker; a pull request in the listing and an unlabelled issue
// are left alone.
func TestIssueLifecycle(t *testing.T) {
	rep := reports(t)
	fake := newFakeGitHub(t, "read")
	fake.AddIssue("unrelated", report.Marker+"\nnot ours: no label")
	env := ghEnv(t, fake, writeToken, map[string]any{"schedule": "0 6 * * 1"})
	args := []string{"issue", "github", "--report", rep["head"], "--github-output", env["GITHUB_OUTPUT"]}
	r := runGitHub(t, env, args...)
	if r.code != cmdutil.ExitOK || !strings.Contains(r.errOut, "created issue o/r#") || !strings.Contains(r.outs, "issue-url=") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.errOut, r.outs)
	}
	var ours []fakegithub.Issue
	for _, is := range fake.Issues() {
		if is.Title == "capreport: autoscaler report" {
			ours = append(ours, is)
		}
	}
	if len(ours) != 1 || len(ours[0].Labels) != 1 || ours[0].Labels[0] != "capreport" || !strings.Contains(ours[0].Body, staticID) {
		t.Fatalf("issues %+v", fake.Issues())
	}
	writes := len(fake.Writes())
	if r = runGitHub(t, env, args...); r.code != cmdutil.ExitOK || !strings.Contains(r.errOut, "unchanged: issue") || len(fake.Writes()) != writes {
		t.Errorf("second run: exit %d\n%s", r.code, r.errOut)
	}
	args[3] = rep["head2"]
	if r = runGitHub(t, env, args...); r.code != cmdutil.ExitOK || !strings.Contains(r.errOut, "updated issue o/r#"+strconv.Itoa(ours[0].Number)) {
		t.Errorf("third run: exit %d\n%s", r.code, r.errOut)
	}
	if len(fake.Issues()) != 2 {
		t.Errorf("%d issues", len(fake.Issues()))
	}

	// A read-only token: named permission, summary written.
	env = ghEnv(t, fake, readToken, nil)
	r = runGitHub(t, env, "issue", "github", "--report", rep["head"], "--title", "other")
	if r.code != cmdutil.ExitError || !strings.Contains(r.errOut, "the token lacks the permission issues: write") || !strings.Contains(r.summary, webID) {
		t.Errorf("read-only: exit %d\n%s", r.code, r.errOut)
	}
	checkTokenOnlyInAuthorization(t, fake)
}

// TestSummaryCommand: the job summary alone needs no token, keeps under
// the 1 MiB step limit, and prints to stdout outside Actions.
func TestSummaryCommand(t *testing.T) {
	rep := reports(t)
	dir := t.TempDir()
	sum := filepath.Join(dir, "summary.md")
	env := map[string]string{"GITHUB_STEP_SUMMARY": sum, "GITHUB_OUTPUT": filepath.Join(dir, "out")}
	r := runGitHub(t, env, "summary", "--report", rep["head"], "--base", rep["base"], "--github-output", env["GITHUB_OUTPUT"])
	if r.code != cmdutil.ExitOK || !strings.Contains(r.summary, webID) || !strings.Contains(r.outs, "verdict=fail") || strings.Contains(r.outs, "failed=") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.errOut, r.outs)
	}
	// --fail-on counts the checks failing at that severity, for a job that
	// gates on a report made elsewhere.
	for failOn, want := range map[string]*regexp.Regexp{"error": regexp.MustCompile(`(?m)^failed=[1-9]\d*$`), "never": regexp.MustCompile(`(?m)^failed=0$`)} {
		r = runGitHub(t, env, "summary", "--report", rep["head"], "--fail-on", failOn, "--github-output", env["GITHUB_OUTPUT"])
		if r.code != cmdutil.ExitOK || !want.MatchString(r.outs) {
			t.Errorf("--fail-on %s: exit %d\n%s", failOn, r.code, r.outs)
		}
	}
	if r = runGitHub(t, env, "summary", "--report", rep["head"], "--fail-on", "sometimes"); r.code != cmdutil.ExitError || !strings.Contains(r.errOut, `--fail-on: "sometimes" is not one of error, warning, never`) {
		t.Errorf("bad --fail-on: exit %d\n%s", r.code, r.errOut)
	}
	// An almost full summary gets a one-line pointer, never more than fits.
	if err := os.WriteFile(sum, bytes.Repeat([]byte("x"), 1<<20-10<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if r = runGitHub(t, map[string]string{}, "summary", "--report", rep["head"], "--summary", sum); r.code != cmdutil.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.errOut)
	}
	if fi, _ := os.Stat(sum); fi.Size() > 1<<20 {
		t.Errorf("summary grew to %d bytes", fi.Size())
	}
	r = runGitHub(t, map[string]string{}, "summary", "--report", rep["head"])
	if r.code != cmdutil.ExitOK || !strings.HasPrefix(r.out, report.Marker) || !strings.Contains(r.out, staticID) {
		t.Errorf("stdout summary: exit %d\n%.300s\n%s", r.code, r.out, r.errOut)
	}
}

// TestPostingUsageErrors: each is exit 2, and none reaches GitHub (the
// fake would record it).
func TestPostingUsageErrors(t *testing.T) {
	rep := reports(t)
	fake := newFakeGitHub(t, "read")
	notJSON := writeTemp(t, "x.json", "<html>")
	badSchema := writeTemp(t, "bad.json", `{"schemaVersion": "`+contract.SchemaVersion+`", "workloads": "many"}`)
	oldSchema := writeTemp(t, "old.json", `{"schemaVersion": "capreport.io/report/v0"}`)
	full := ghEnv(t, fake, writeToken, nil)
	noToken := ghEnv(t, fake, "", prEvent("o/r"))
	// Each of head and base within the bound, the two together not.
	together := strconv.FormatInt(fileSize(t, rep["head"])+fileSize(t, rep["base"])-1, 10)
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no report", full, []string{"comment", "github", "--pr", "7"}, "--report: a JSON report is required"},
		{"missing report", full, []string{"comment", "github", "--pr", "7", "--report", "/nonexistent/r.json"}, "/nonexistent/r.json: no such file or directory"},
		{"not JSON", full, []string{"comment", "github", "--pr", "7", "--report", notJSON}, "not a capreport JSON report"},
		{"schema", full, []string{"comment", "github", "--pr", "7", "--report", badSchema}, "does not match the capreport report schema"},
		{"old schema", full, []string{"issue", "github", "--report", oldSchema}, `schemaVersion "capreport.io/report/v0"`},
		{"too large", full, []string{"comment", "github", "--pr", "7", "--report", rep["head"], "--max-report-bytes", "1000"}, "larger than 1000 bytes (--max-report-bytes)"},
		{"base and head together", full, []string{"comment", "github", "--pr", "7", "--report", rep["head"], "--base", rep["base"], "--max-report-bytes", together},
			rep["base"] + ": with the other report's"},
		{"no pull request", full, []string{"comment", "github", "--report", rep["head"]}, "--pr: no pull request: pass --pr, or run on a pull_request or workflow_run event"},
		{"bad behavior", full, []string{"comment", "github", "--pr", "7", "--report", rep["head"], "--behavior", "replace"}, `--behavior: "replace" is not one of`},
		{"bad images", full, []string{"comment", "github", "--pr", "7", "--report", rep["head"], "--images", "s3"}, `--images: "s3" is not none or branch`},
		{"no repository", map[string]string{"GITHUB_TOKEN": writeToken}, []string{"comment", "github", "--pr", "7", "--report", rep["head"]}, "--repo: the repository is required"},
		{"no token", noToken, []string{"comment", "github", "--report", rep["head"]}, "no GitHub token: set GITHUB_TOKEN"},
		{"empty title", full, []string{"issue", "github", "--report", rep["head"], "--title", " "}, "--title: the issue's title cannot be empty"},
		{"positional", full, []string{"comment", "github", "--report", rep["head"], "extra"}, `unknown command "extra"`},
	} {
		r := runGitHub(t, c.env, c.args...)
		if r.code != cmdutil.ExitError || !strings.Contains(r.errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", c.name, r.code, r.errOut, c.want)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d request(s) reached GitHub", n)
	}
	// Without a token the report still reaches the summary.
	r := runGitHub(t, noToken, "comment", "github", "--report", rep["head"])
	if !strings.Contains(r.summary, webID) {
		t.Errorf("no summary without a token:\n%s", r.errOut)
	}
}

// TestCommentDryRun needs no token and makes no request.
func TestCommentDryRun(t *testing.T) {
	rep := reports(t)
	fake := newFakeGitHub(t, "read")
	env := ghEnv(t, fake, "", nil)
	r := runGitHub(t, env, "comment", "github", "--report", rep["head"], "--base", rep["base"], "--pr", "7", "--dry-run")
	if r.code != cmdutil.ExitOK || !strings.HasPrefix(r.out, report.Marker+"\n") || !strings.Contains(r.errOut, "dry run: would post a comment on o/r#7") || r.summary != "" {
		t.Errorf("exit %d\n%.300s\n%s", r.code, r.out, r.errOut)
	}
	if len(fake.Requests()) != 0 {
		t.Error("a dry run reached GitHub")
	}
}

// TestCommentOnEnterpriseServer: GitHub Enterprise Server's layout (REST
// under /api/v3/, GraphQL at /api/graphql), reached with the flags alone
// and with the token from --github-token; GITHUB_GRAPHQL_URL is optional.
func TestCommentOnEnterpriseServer(t *testing.T) {
	rep := reports(t)
	fake := fakegithub.New(t, fakegithub.Config{Owner: "o", Repo: "r", Enterprise: true,
		Tokens:       map[string]fakegithub.Permissions{writeToken: {PullRequests: "write"}},
		PullRequests: []fakegithub.PullRequest{{Number: 7}}})
	if !strings.HasSuffix(fake.URL, "/api/v3/") {
		t.Fatalf("fake URL %s", fake.URL)
	}
	env := map[string]string{}
	args := []string{"comment", "github", "--report", rep["head"], "--repo", "o/r", "--pr", "7",
		"--github-api-url", strings.TrimSuffix(fake.URL, "/"), "--github-token", writeToken}
	if r := runGitHub(t, env, args...); r.code != cmdutil.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.errOut)
	}
	if r := runGitHub(t, env, append(args, "--behavior", "hide-and-new")...); r.code != cmdutil.ExitOK {
		t.Fatalf("hide-and-new: exit %d\n%s", r.code, r.errOut)
	}
	cs := marked(fake.Comments(7))
	if len(cs) != 2 || !cs[0].Minimized {
		t.Errorf("comments %+v", cs)
	}
	for _, r := range fake.Requests() {
		if !strings.HasPrefix(r.Path, "/api/") {
			t.Errorf("%s %s is not under /api/", r.Method, r.Path)
		}
	}
	checkTokenOnlyInAuthorization(t, fake)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
