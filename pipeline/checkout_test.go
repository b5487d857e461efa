package pipeline

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// parseRawDiff reads what `git diff --raw -z --no-renames` prints, and
// says a change is not plain when either side is a link or a submodule,
// or the file is a .gitattributes or a .gitmodules.
func TestParseRawDiff(t *testing.T) {
	const blob = "1111111111111111111111111111111111111111 2222222222222222222222222222222222222222"
	for _, tc := range []struct {
		name, out string
		paths     []string
		plain     bool
		err       bool
	}{
		{name: "nothing changed", out: "", plain: true},
		{name: "files", out: ":100644 100644 " + blob + " M\x00charts/a/values.yaml\x00:000000 100644 " + blob + " A\x00b c.yaml\x00",
			paths: []string{"charts/a/values.yaml", "b c.yaml"}, plain: true},
		{name: "a link made", out: ":100644 120000 " + blob + " T\x00charts/a\x00", paths: []string{"charts/a"}},
		{name: "a submodule moved", out: ":160000 160000 " + blob + " M\x00vendor/lib\x00", paths: []string{"vendor/lib"}},
		{name: "attributes", out: ":100644 100644 " + blob + " M\x00sub/.gitattributes\x00", paths: []string{"sub/.gitattributes"}},
		{name: "submodules declared", out: ":000000 100644 " + blob + " A\x00.gitmodules\x00", paths: []string{".gitmodules"}},
		{name: "no NUL after the last path", out: ":100644 100644 " + blob + " M\x00a.yaml", err: true},
		{name: "not raw", out: "a.yaml\x00b.yaml\x00", err: true},
		{name: "a path missing", out: ":100644 100644 " + blob + " M\x00\x00", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths, plain, err := parseRawDiff(tc.out)
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want one: %v", err, tc.err)
			}
			if tc.err {
				return
			}
			if !reflect.DeepEqual(paths, tc.paths) || plain != tc.plain {
				t.Errorf("got %q plain %v, want %q plain %v", paths, plain, tc.paths, tc.plain)
			}
		})
	}
}

// The earlier commit comes from the memo file in the cache directory: it
// reaches git only as a full commit name, never as an option.
func TestCheckoutChangesRefusesNonCommits(t *testing.T) {
	git := func(_ context.Context, _ string, args ...string) (string, error) {
		t.Errorf("git ran with %q", args)
		return "", nil
	}
	co := checkoutOf(context.Background(), git, t.TempDir(), strings.Repeat("a", 40), nil)
	for _, since := range []string{"--output=/tmp/x", "HEAD", strings.Repeat("A", 40), ""} {
		if _, _, err := co.Changes(since); err == nil {
			t.Errorf("Changes(%q) took it for a commit", since)
		}
	}
}

// ChangedSince lists what the commits since a ref changed, for the head
// of a diff to check first; a ref git does not know gives nothing.
func TestChangedSince(t *testing.T) {
	top := gitRepo(t, chartRepo(2, func(int) int { return 5 }))
	commitFiles(t, top, map[string]string{"charts/c001/values.yaml": "max: 6\n"})
	if got := ChangedSince(context.Background(), NewRevision(nil, top, "HEAD~1", "base-ref"))(); !reflect.DeepEqual(got, []string{"charts/c001/values.yaml"}) {
		t.Errorf("since HEAD~1: %q, want the one values file", got)
	}
	if got := ChangedSince(context.Background(), NewRevision(nil, filepath.Join(top, "charts"), "no-such-ref", "base-ref"))(); got != nil {
		t.Errorf("since a ref git does not know: %q, want nothing", got)
	}
}
