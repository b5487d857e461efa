package kustomize

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/kustread"
	"github.com/capreport/capreport/render/internal/repofs"
)

// Two builds that read a file through one ReadMemo get what reading it
// alone gives (the rewrite, what it says of itself, an alias bomb's
// refusal), made once; a file that reads other bytes is made again; the
// line index is kept the same way; what is over the budget is not kept.
func TestReadMemo(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string) string {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hpa := write("hpa.yaml", "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: &app web\nspec:\n  x:\n    *app :\n      y: 1\n")
	list := write("list.yaml", "kind: ConfigMapList\nmetadata: {}\nitems: []\n")
	bomb := write("bomb.yaml", "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n")
	// A Repo on disk holds what it read for its render; the memo lives
	// across renders (a worker's setups), each with a Repo of its own.
	repo := func() *repofs.Repo {
		t.Helper()
		r, err := repofs.Open(filesys.MakeFsOnDisk(), true, root, 4<<20)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	read := func(memo *ReadMemo, p string) (string, Rewritten, error) {
		fs := NewFS(repo(), nil)
		fs.Memo = memo
		fs.RewriteFile = func(string) bool { return true }
		fs.Rewrite = Rewrite{Annotate: true}
		data, err := fs.ReadFile(p)
		return string(data), fs.Rewrote(), err
	}
	memo := NewReadMemo()
	for _, p := range []string{hpa, list, bomb} {
		alone, aloneGot, aloneErr := read(nil, p)
		for range 2 {
			got, gotRewrote, err := read(memo, p)
			if got != alone || gotRewrote != aloneGot || (err == nil) != (aloneErr == nil) {
				t.Errorf("%s through the memo: %q %+v %v; alone: %q %+v %v", filepath.Base(p), got, gotRewrote, err, alone, aloneGot, aloneErr)
			}
		}
	}
	if got, _, _ := read(memo, hpa); !strings.Contains(got, kustread.FileAnnotation) || strings.Contains(got, "*app :") {
		t.Errorf("the HPA read through the memo is not annotated as kustread writes it:\n%s", got)
	}
	if n := len(memo.reads); n != 3 {
		t.Errorf("the memo holds %d reads, want one per file", n)
	}
	write("hpa.yaml", "kind: HorizontalPodAutoscaler\nmetadata:\n  name: api\n")
	if got, _, _ := read(memo, hpa); !strings.Contains(got, "name: api") {
		t.Errorf("a file that changed reads as it was:\n%s", got)
	}
	li := NewLineIndex(repo(), 100, memo)
	if d, ok := li.find(hpa, "HorizontalPodAutoscaler", "api"); !ok || d.line != 1 {
		t.Errorf("the line index found %+v, %v; want line 1", d, ok)
	}
	write("hpa.yaml", "---\n# moved\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: api\n")
	if d, ok := NewLineIndex(repo(), 100, memo).find(hpa, "HorizontalPodAutoscaler", "api"); !ok || d.line != 3 {
		t.Errorf("after the file moved the document the line index found %+v, %v; want line 3", d, ok)
	}
	used := memo.used
	big := write("big.yaml", "kind: ConfigMap\nmetadata: {name: big}\ndata: {x: "+strings.Repeat("x", memoFileMax)+"}\n")
	if _, _, err := read(memo, big); err != nil {
		t.Fatal(err)
	}
	if _, kept := memo.reads[readKey{real: big, annotate: true}]; kept || memo.used != used {
		t.Errorf("a file over %d bytes was kept (%d bytes used, %d before)", memoFileMax, memo.used, used)
	}
}
