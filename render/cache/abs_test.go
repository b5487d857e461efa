package cache

import (
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/render/internal/repofs"
)

// The cache joins a recorded path to the root without cleaning it only
// when cleaning would change nothing: every path comes out as
// filepath.Join makes it.
func TestCacheAbsJoins(t *testing.T) {
	for _, root := range []string{"/repo", "/r/deep/root", "/"} {
		c := &Cache{repo: &repofs.Repo{Root: root}}
		for _, p := range []string{"a", "a/b.yaml", ".", "..", "../x", "a/../b", "a//b", "a/./b", "/etc/passwd", "a/", "", ".hidden/x", "a..b/c", "x/.."} {
			if got, want := c.abs(p), filepath.Join(root, filepath.FromSlash(p)); got != want {
				t.Errorf("root %s: abs(%q) = %q, want %q", root, p, got, want)
			}
		}
	}
}
