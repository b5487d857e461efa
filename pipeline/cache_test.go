package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
)

// chartRepo is a monorepo of n charts, each with an HPA and its
// Deployment; chart i's maxReplicas is max(i).
func chartRepo(n int, max func(i int) int) map[string]string {
	files := map[string]string{}
	for i := range n {
		dir := fmt.Sprintf("charts/c%03d/", i)
		files[dir+"Chart.yaml"] = fmt.Sprintf("apiVersion: v2\nname: c%03d\nversion: 1.0.0\n", i)
		files[dir+"values.yaml"] = fmt.Sprintf("max: %d\n", max(i))
		files[dir+"templates/hpa.yaml"] = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: {{ .Chart.Name }}\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: {{ .Chart.Name }}\n  minReplicas: 2\n  maxReplicas: {{ .Values.max }}\n  metrics:\n    - type: Resource\n      resource:\n        name: cpu\n        target:\n          type: Utilization\n          averageUtilization: 60\n"
		files[dir+"templates/deploy.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Chart.Name }}\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          resources:\n            requests:\n              cpu: 500m\n            limits:\n              cpu: \"1\"\n"
	}
	return files
}

// rendered counts, by source path, the renders a load made (not taken
// from the render cache).
func rendered(t *testing.T, path string, s Settings) (map[string]int, time.Duration) {
	t.Helper()
	start := time.Now()
	rp, err := Load(context.Background(), []string{path}, s)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	out := map[string]int{}
	for _, src := range rp.Rendered.Sources {
		if !src.Cached {
			out[src.Path]++
		}
	}
	return out, took
}

// A diff between two checkouts of a 100-chart repository that differ in
// one chart renders that chart twice (base and head) and every other
// source once; run again, it renders nothing; and a head that changes the
// chart once more renders only that chart, in about the time of a run of
// that chart alone.
func TestRenderCacheDiff(t *testing.T) {
	testutil.SkipIfShort(t)
	const n, changed = 100, "charts/c042"
	base, head := t.TempDir(), t.TempDir()
	testutil.WriteTree(t, base, chartRepo(n, func(int) int { return 10 }))
	testutil.WriteTree(t, head, chartRepo(n, func(i int) int { return 10 + boolInt(i == 42) }))
	s := Settings{Cache: true, CacheDir: t.TempDir()}

	total := map[string]int{}
	reports := map[string]string{}
	for _, dir := range []string{base, head} {
		got, _ := rendered(t, dir, s)
		for p, c := range got {
			total[p] += c
		}
		reports[dir] = buildJSON(t, dir, s)
	}
	bills := filepath.Join(s.CacheDir, "bills")
	if got := testutil.CountFiles(t, bills); got != n+1 {
		t.Errorf("%d bills stored after base and head, want %d (the changed chart's twice)", got, n+1)
	}
	if len(total) != n || total[changed] != 2 {
		t.Fatalf("renders per source %v: want %s twice and the other %d once", total, changed, n-1)
	}
	for p, c := range total {
		if p != changed && c != 1 {
			t.Errorf("%s rendered %d times", p, c)
		}
	}
	for _, dir := range []string{base, head} {
		if got, _ := rendered(t, dir, s); len(got) != 0 {
			t.Errorf("%s again rendered %v, want nothing", dir, got)
		}
		if buildJSON(t, dir, s) != reports[dir] || buildJSON(t, dir, Settings{}) != reports[dir] {
			t.Errorf("%s: the report from the caches differs from a fresh one", dir)
		}
	}
	if got := testutil.CountFiles(t, bills); got != n+1 {
		t.Errorf("%d bills stored after running again, want still %d", got, n+1)
	}
	testutil.WriteTree(t, head, map[string]string{changed + "/values.yaml": "max: 12\n"})
	got, _ := rendered(t, head, s)
	if len(got) != 1 || got[changed] != 1 {
		t.Errorf("head after one more change rendered %v, want only %s", got, changed)
	}
	start := time.Now()
	buildJSON(t, head, s)
	diffTook := time.Since(start)
	if got := testutil.CountFiles(t, bills); got != n+2 {
		t.Errorf("%d bills stored after one more change, want %d", got, n+2)
	}
	start = time.Now()
	buildJSON(t, filepath.Join(head, changed), Settings{})
	aloneTook := time.Since(start)
	t.Logf("the changed repository took %s with the cache, the chart alone %s", diffTook, aloneTook)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// buildJSON is the JSON report of path.
func buildJSON(t *testing.T, path string, s Settings) string {
	t.Helper()
	r, _, err := Build(context.Background(), []string{path}, s)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// commitFiles writes files into the repository at top, commits them, and
// returns the commit's name.
func commitFiles(t *testing.T, top string, files map[string]string) string {
	t.Helper()
	testutil.WriteTree(t, top, files)
	if _, err := RunGit(context.Background(), top, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "change"); err != nil {
		t.Fatal(err)
	}
	sha, err := RunGit(context.Background(), top, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// gitRepo makes a repository with one commit of files and returns its
// top; more commits follow with commitAll.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	top := t.TempDir()
	testutil.WriteTree(t, top, files)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base"}} {
		if _, err := RunGit(context.Background(), top, args...); err != nil {
			t.Fatal(err)
		}
	}
	return top
}

// With the cache, --ref checks the base out into one worktree the cache
// keeps, moved to each revision asked for; a run that finds it in use
// checks out a temporary one, as without the cache, and leaves nothing
// registered.
func TestBuildAtRefKeptWorktree(t *testing.T) {
	testutil.SkipIfShort(t)
	top := gitRepo(t, chartRepo(3, func(int) int { return 5 }))
	commitFiles(t, top, map[string]string{"charts/c001/values.yaml": "max: 6\n"})
	s := Settings{Cache: true, CacheDir: t.TempDir()}
	worktrees := func() int {
		out, err := RunGit(context.Background(), top, "worktree", "list", "--porcelain")
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(out, "worktree ")
	}
	for _, ref := range []string{"HEAD~1", "HEAD", "HEAD~1"} {
		r, _, err := BuildAtRef(context.Background(), top, ref, "ref", s)
		if err != nil {
			t.Fatal(err)
		}
		want := 5
		if ref == "HEAD" {
			want = 6
		}
		if w := r.Workloads[1]; w.MaxReplicas != int32(want) {
			t.Errorf("%s: c001 maxReplicas %d, want %d", ref, w.MaxReplicas, want)
		}
		if n := worktrees(); n != 2 {
			t.Errorf("%s: %d worktrees registered, want the checkout and the cache's", ref, n)
		}
	}
	locks, _ := filepath.Glob(filepath.Join(s.CacheDir, "worktrees", "*.lock"))
	if len(locks) != 0 {
		t.Fatalf("locks left: %v", locks)
	}
	kept, _ := filepath.Glob(filepath.Join(s.CacheDir, "worktrees", "*"))
	if err := os.WriteFile(kept[0]+".lock", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := BuildAtRef(context.Background(), top, "HEAD~1", "ref", s); err != nil {
		t.Fatal(err)
	}
	if n := worktrees(); n != 2 {
		t.Errorf("with the kept worktree locked, %d worktrees are registered after the run, want 2", n)
	}
}

// The kept worktree's files change only where git moves them, so a run
// at a commit trusts the digests a run at an earlier commit recorded for
// every path git says is the same at both (render.Checkout): moved back
// and forth between commits that change different charts, each run asks
// git what changed since the commit its memo holds for, and each report
// has every chart's value at its own commit.
func TestBuildAtRefTrustsGit(t *testing.T) {
	testutil.SkipIfShort(t)
	top := gitRepo(t, chartRepo(3, func(int) int { return 5 }))
	a, err := RunGit(context.Background(), top, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	b := commitFiles(t, top, map[string]string{"charts/c001/values.yaml": "max: 6\n"})
	c := commitFiles(t, top, map[string]string{"charts/c002/values.yaml": "max: 7\n"})
	var asked []string // the commits git diff was asked to compare
	s := Settings{Cache: true, CacheDir: t.TempDir(), Git: func(ctx context.Context, dir string, args ...string) (string, error) {
		if args[0] == "diff" {
			asked = append(asked, args[len(args)-2]+".."+args[len(args)-1])
		}
		return RunGit(ctx, dir, args...)
	}}
	build := func(sha string, want ...int32) {
		t.Helper()
		r, _, err := BuildAtRef(context.Background(), top, sha, "ref", s)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range r.Workloads {
			if w.MaxReplicas != want[i] {
				t.Errorf("at %.7s c%03d has maxReplicas %d, want %d", sha, i, w.MaxReplicas, want[i])
			}
		}
	}
	build(a, 5, 5, 5)
	time.Sleep(2100 * time.Millisecond) // the checked-out files settle: the memo records them
	build(a, 5, 5, 5)
	prev := a
	for _, step := range []struct {
		sha  string
		want []int32
	}{{b, []int32{5, 6, 5}}, {c, []int32{5, 6, 7}}, {a, []int32{5, 5, 5}}, {c, []int32{5, 6, 7}}} {
		asked = nil
		build(step.sha, step.want...)
		if len(asked) != 1 || asked[0] != prev+".."+step.sha {
			t.Errorf("at %.7s git diff was asked %v, want one comparison with the commit before", step.sha, asked)
		}
		prev = step.sha
	}
}

// The kept worktree is cleaned of untracked files only when the run
// before did not finish moving it (its marker is missing): a checkout
// from a clean worktree leaves none, and git clean reads every directory.
func TestKeptWorktreeCleansAfterAnUnfinishedMove(t *testing.T) {
	testutil.SkipIfShort(t)
	top := gitRepo(t, chartRepo(2, func(int) int { return 5 }))
	commitFiles(t, top, map[string]string{"charts/c001/values.yaml": "max: 6\n"})
	cleans := 0
	s := Settings{Cache: true, CacheDir: t.TempDir(), Git: func(ctx context.Context, dir string, args ...string) (string, error) {
		if args[0] == "clean" {
			cleans++
		}
		return RunGit(ctx, dir, args...)
	}}
	build := func(ref string) int {
		t.Helper()
		r, _, err := BuildAtRef(context.Background(), top, ref, "ref", s)
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Workloads)
	}
	build("HEAD")
	build("HEAD~1")
	if cleans != 0 {
		t.Errorf("git clean ran %d times after moves that finished", cleans)
	}
	kept, _ := filepath.Glob(filepath.Join(s.CacheDir, "worktrees", "*.clean"))
	if len(kept) != 1 {
		t.Fatalf("markers %v, want the kept worktree's", kept)
	}
	wt := strings.TrimSuffix(kept[0], ".clean")
	// A run died mid-checkout: no marker, and a file git never wrote.
	if err := os.Remove(kept[0]); err != nil {
		t.Fatal(err)
	}
	testutil.WriteTree(t, wt, map[string]string{"charts/c000/templates/stray.yaml": strings.ReplaceAll(chartRepo(1, func(int) int { return 9 })["charts/c000/templates/hpa.yaml"], "{{ .Chart.Name }}", "stray")})
	if n := build("HEAD"); cleans != 1 || n != 2 {
		t.Errorf("after an unfinished move: git clean ran %d times and the report has %d workloads, want 1 and 2", cleans, n)
	}
	// A marker that names another commit than git's HEAD for the worktree
	// (a cache directory restored apart from the repository) holds nothing.
	if err := os.WriteFile(kept[0], []byte(strings.Repeat("0", 40)), 0o600); err != nil {
		t.Fatal(err)
	}
	if build("HEAD~1"); cleans != 2 {
		t.Errorf("with a marker of another commit, git clean ran %d times in all, want 2", cleans)
	}
}
