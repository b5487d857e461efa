package pipeline

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

const gitConfig = "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:example/deploy.git\n[remote \"fork\"]\n\turl = https://github.com/me/deploy\n[branch \"main\"]\n\tremote = origin\n"

// The remotes come from the checkout's own config, whether .git is the
// directory or, in a linked worktree, a file naming the gitdir whose
// commondir holds the config.
func TestGitRemoteURLs(t *testing.T) {
	want := []string{"git@github.com:example/deploy.git", "https://github.com/me/deploy"}
	checkout := t.TempDir()
	testutil.WriteTree(t, checkout, map[string]string{".git/config": gitConfig})
	if got := gitRemoteURLs(checkout); !slices.Equal(got, want) {
		t.Errorf("checkout: %q, want %q", got, want)
	}
	wt := t.TempDir()
	testutil.WriteTree(t, wt, map[string]string{".git": "gitdir: " + filepath.Join(checkout, ".git", "worktrees", "wt") + "\n"})
	testutil.WriteTree(t, checkout, map[string]string{".git/worktrees/wt/commondir": "../..\n"})
	if got := gitRemoteURLs(wt); !slices.Equal(got, want) {
		t.Errorf("worktree: %q, want %q", got, want)
	}
	if got := gitRemoteURLs(t.TempDir()); got != nil {
		t.Errorf("no checkout: %q", got)
	}
}

// Bad settings are refused before anything renders, naming the flag.
func TestSettingsRefused(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"hpa.yaml": hpaYAML})
	for _, tc := range []struct {
		name string
		s    Settings
		want string
	}{
		{"values", Settings{Values: []string{"nope.yaml"}}, "--values: nope.yaml: not found"},
		{"include", Settings{Include: []string{"dead-bnad"}}, `--include: "dead-bnad" is not a check ID`},
		{"set", Settings{Set: []string{"a[=1"}}, `--set: "a[=1"`},
		{"timeout", Settings{RenderTimeout: -time.Second}, "--render-timeout: -1s is negative"},
		{"memory", Settings{RenderMemory: 1 << 20}, "--render-memory: 1Mi is below the 64Mi"},
		{"root", Settings{Root: filepath.Join(dir, "hpa.yaml")}, "--root: "},
	} {
		_, _, err := Build(context.Background(), []string{dir}, tc.s)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an InputError starting %q", tc.name, err, tc.want)
		}
	}
	_, _, err := Build(context.Background(), []string{filepath.Join(dir, "missing")}, Settings{})
	if want := "missing: no such file or directory"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("missing PATH: %v", err)
	}
}

const hpaYAML = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  minReplicas: 2\n  maxReplicas: 2\n"

// Build names the tool it is given, and paths that share a directory are
// one repository reported at that directory.
func TestBuild(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"a/hpa.yaml": hpaYAML, "b/other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"})
	tool := contract.Tool{Name: "capreport", Version: "v9.9.9"}
	r, cfg, err := Build(context.Background(), []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}, Settings{Tool: tool})
	if err != nil {
		t.Fatal(err)
	}
	if r.Tool != tool || cfg == nil || r.Root != dir {
		t.Errorf("tool %+v, root %q, config %v", r.Tool, r.Root, cfg)
	}
	if len(r.Workloads) != 1 || r.Workloads[0].ID != "shop/HorizontalPodAutoscaler/web" || len(r.Sources) != 2 {
		t.Fatalf("workloads %+v, sources %+v", r.Workloads, r.Sources)
	}
}

func TestReportPath(t *testing.T) {
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{[]string{"deploy"}, "deploy"},
		{[]string{"deploy/a", "deploy/b"}, "deploy"},
		{[]string{"deploy/a/x.yaml", "deploy/b/y.yaml"}, "deploy"},
		{[]string{"a", "b"}, "."},
	} {
		if got := reportPath(tc.paths); got != filepath.FromSlash(tc.want) {
			t.Errorf("reportPath(%q) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}

// A ref that git would read as an option is refused before git runs.
func TestBuildAtRefRefusesOption(t *testing.T) {
	called := false
	s := Settings{Git: func(context.Context, string, ...string) (string, error) { called = true; return "", nil }}
	_, _, err := BuildAtRef(context.Background(), ".", "--output=/tmp/x", "base-ref", s)
	if err == nil || !strings.HasPrefix(err.Error(), `--base-ref: "--output=/tmp/x" is not a git revision`) || called {
		t.Errorf("err %v, git called %v", err, called)
	}
}
