//go:build linux

package cache

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/digestmemo"
	"github.com/capreport/capreport/render/internal/repofs"
)

// fakeCheckout is a Checkout whose git answers from a table: the paths
// that changed since each earlier commit, and whether the tree is plain.
type fakeCheckout struct {
	changes map[string][]string // by the earlier commit; missing: git fails
	plain   bool
	asked   []string // the commits Changes was asked about
}

func (f *fakeCheckout) at(commit string) *digestmemo.Checkout {
	return &digestmemo.Checkout{Commit: commit,
		Changes: func(since string) ([]string, bool, error) {
			f.asked = append(f.asked, since)
			paths, ok := f.changes[since]
			if !ok {
				return nil, false, errors.New("unknown revision")
			}
			return paths, f.plain, nil
		},
		Plain: func() (bool, error) { return f.plain, nil }}
}

// On a Checkout root the memo trusts git over stat: a path git says did
// not change since the commit the memo holds for keeps its digest without
// a stat (here even though its bytes were rewritten behind git's back), a
// path git says changed is read again, and so is a directory whose
// listing the change touched. When git cannot answer, the root was
// checked out anew, or the change holds a link, every entry is checked by
// its stat again; a tree with links is never vouched for.
func TestCheckoutMemo(t *testing.T) {
	cacheDir, root := t.TempDir(), t.TempDir()
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/values.yaml", "a: 1\n")
	write("b/values.yaml", "b: 1\n")
	git := &fakeCheckout{changes: map[string][]string{}, plain: true}
	run := func(co *digestmemo.Checkout, reads ...[2]string) map[[2]string]string {
		t.Helper()
		c := Open(Options{Dir: cacheDir, Repo: diskRepo(t, root), OnDisk: true, Checkout: co})
		c.memo.StartedAt(time.Now().Add(time.Hour)) // every file has settled
		got := map[[2]string]string{}
		for _, in := range reads {
			got[in] = c.current(in[0], in[1])
		}
		c.Close()
		return got
	}
	fileA, fileB, dirA := [2]string{"file", "a/values.yaml"}, [2]string{"file", "b/values.yaml"}, [2]string{"dir", "a"}
	first := run(git.at("c1"), fileA, fileB, dirA)
	if len(git.asked) != 0 {
		t.Fatalf("a memo that holds for no commit asked git about %v", git.asked)
	}

	time.Sleep(10 * time.Millisecond) // past the clock's resolution
	write("a/values.yaml", "a: 2\n")
	write("b/values.yaml", "b: 2\n") // git is told it did not change
	write("a/new.yaml", "")
	git.changes["c1"] = []string{"a/values.yaml", "a/new.yaml"}
	second := run(git.at("c2"), fileA, fileB, dirA)
	if second[fileB] != first[fileB] {
		t.Errorf("a file git says is unchanged was read again: %q, want the memo's %q", second[fileB], first[fileB])
	}
	if want := fileDigest([]byte("a: 2\n"), nil); second[fileA] != want {
		t.Errorf("a file git says changed gives %q, want its new digest %q", second[fileA], want)
	}
	if second[dirA] == first[dirA] {
		t.Error("a directory a file was added to kept its listing")
	}

	third := run(git.at("c3"), fileB) // git does not know c2: stat decides
	if want := fileDigest([]byte("b: 2\n"), nil); third[fileB] != want {
		t.Errorf("without git's word a rewritten file gives %q, want %q", third[fileB], want)
	}

	git.changes["c3"] = nil
	git.asked = nil
	fresh := git.at("c3")
	fresh.Fresh = true // checked out anew: the files were written again
	write("b/values.yaml", "b: 3\n")
	if got := run(fresh, fileB); len(git.asked) != 0 || got[fileB] != fileDigest([]byte("b: 3\n"), nil) {
		t.Errorf("a fresh checkout was vouched for (git asked about %v, b reads %q)", git.asked, got[fileB])
	}

	git.plain = false // a link appears: the memo holds for no commit after
	run(git.at("c4"))
	git.asked = nil
	run(git.at("c5"))
	if len(git.asked) != 0 {
		t.Errorf("the memo of a tree with links was vouched for again (git asked about %v)", git.asked)
	}
}

// The sources a change is under are checked first, on a root git vouches
// for and where the caller expects changes: they are the likeliest to
// render, and their renders then start before the other sources' checks.
func TestCheckOrderPutsChangesFirst(t *testing.T) {
	path := digestmemo.File(t.TempDir(), "/repo")
	git := &fakeCheckout{changes: map[string][]string{"c1": {"charts/b/values.yaml"}}, plain: true}
	digestmemo.Release(digestmemo.Acquire(path, git.at("c1"))) // saved as holding for c1
	m := digestmemo.Acquire(path, git.at("c2"))                // git vouches for c1..c2
	defer digestmemo.Release(m)
	specs := []string{"charts/a", "charts/b", "charts/bb", "charts/b/values.yaml", "charts/b/sub"}
	if got, want := (&Cache{memo: m}).CheckOrder(specs, nil), []int{1, 3, 0, 2, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("checked in the order %v, want %v", got, want)
	}
	if got, want := (&Cache{}).CheckOrder(specs, nil), []int{0, 1, 2, 3, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("without git's word, checked in the order %v, want %v", got, want)
	}
	if got, want := (&Cache{}).CheckOrder(specs, []string{"charts/bb/templates/hpa.yaml"}), []int{2, 0, 1, 3, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("with the caller's hint, checked in the order %v, want %v", got, want)
	}
}

// diskRepo is the repository at root on disk, as a run reads it.
func diskRepo(t *testing.T, root string) *repofs.Repo {
	t.Helper()
	r, err := repofs.New(filesys.MakeFsOnDisk(), true, 1<<20).At(root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
