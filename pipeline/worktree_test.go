package pipeline

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// commitStep changes the work tree of top (files to write, paths to
// remove, files to make executable), commits everything and returns the
// commit.
func commitStep(t *testing.T, top string, write map[string]string, remove, executable []string) string {
	t.Helper()
	for _, p := range remove {
		if err := os.RemoveAll(filepath.Join(top, p)); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteTree(t, top, write)
	for _, p := range executable {
		if err := os.Chmod(filepath.Join(top, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "step"}} {
		if _, err := RunGit(context.Background(), top, args...); err != nil {
			t.Fatal(err)
		}
	}
	sha, err := RunGit(context.Background(), top, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// holdsExactly fails unless the worktree wt is sha checked out: HEAD, the
// index and the files all sha's (git status sees nothing, ignored files
// included), every file git tracks and no other, modes as committed, and
// no directory left empty.
func holdsExactly(t *testing.T, wt, sha string) {
	t.Helper()
	ctx := context.Background()
	if head, err := RunGit(ctx, wt, "rev-parse", "HEAD"); err != nil || head != sha {
		t.Fatalf("HEAD is %s (%v), want %s", head, err, sha)
	}
	if st, err := RunGit(ctx, wt, "status", "--porcelain", "--ignored", "--untracked-files=all"); err != nil || st != "" {
		t.Fatalf("git status: %q (%v)", st, err)
	}
	tracked, err := RunGit(ctx, wt, "ls-tree", "-r", "--format=%(objectmode) %(path)", sha)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(tracked, "\n")
	var got []string
	err = filepath.WalkDir(wt, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" {
			return err
		}
		rel, _ := filepath.Rel(wt, p)
		if d.IsDir() {
			if ents, _ := os.ReadDir(p); len(ents) == 0 {
				t.Errorf("directory %s is left empty", rel)
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := "100644"
		if info.Mode()&0o100 != 0 {
			mode = "100755"
		}
		got = append(got, mode+" "+filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("files on disk:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A clean kept worktree moves to another commit by git restoring only the
// paths that differ (changed, added, deleted, a file that became a
// directory and one that became executable), never by a checkout, and
// ends up exactly as a checkout leaves it; the move records what git said
// differs, for the memo (checkoutOf). A change to a .gitattributes is a
// checkout's to make.
func TestKeptWorktreeRestoresOnlyTheChange(t *testing.T) {
	top := gitRepo(t, map[string]string{"a/b/f.yaml": "1\n", "c/g": "2\n", "top.sh": "x\n", "same.yaml": "s\n"})
	ctx := context.Background()
	base, err := RunGit(ctx, top, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	next := commitStep(t, top, map[string]string{"c/g/i.yaml": "4\n", "new/dir/h.yaml": "3\n", "same.yaml": "changed\n"},
		[]string{"a/b/f.yaml", "c/g"}, []string{"top.sh"})
	attrs := commitStep(t, top, map[string]string{".gitattributes": "*.yaml text\n"}, nil, nil)
	var mu sync.Mutex
	var ran []string
	git := func(ctx context.Context, dir string, args ...string) (string, error) {
		mu.Lock()
		ran = append(ran, args[0])
		mu.Unlock()
		return RunGit(ctx, dir, args...)
	}
	cacheDir := t.TempDir()
	move := func(sha string) baseTree {
		t.Helper()
		ran = nil
		b, ok := keptWorktree(ctx, git, top, sha, cacheDir)
		if !ok {
			t.Fatalf("keptWorktree to %.7s refused", sha)
		}
		b.done()
		holdsExactly(t, b.wt, sha)
		return b
	}
	move(base)
	for _, step := range []struct{ from, to string }{{base, next}, {next, base}, {base, next}} {
		b := move(step.to)
		if !slices.Contains(ran, "restore") || slices.Contains(ran, "checkout") || slices.Contains(ran, "clean") {
			t.Errorf("moving %.7s to %.7s ran git %v, want a restore and no checkout or clean", step.from, step.to, ran)
		}
		if b.diff == nil || b.diff.since != step.from || !b.diff.plain || len(b.diff.paths) != 6 {
			t.Errorf("moving %.7s to %.7s recorded %+v, want the 6 paths that differ since %.7s", step.from, step.to, b.diff, step.from)
		}
	}
	move(attrs)
	if !slices.Contains(ran, "checkout") || slices.Contains(ran, "restore") {
		t.Errorf("a change to .gitattributes ran git %v, want a checkout", ran)
	}
}
