//go:build !unix

package safeopen

import (
	"fmt"
	"os"
)

const openFlags = 0

// checkName refuses a symlink, or anything but a regular file, at p before
// it is opened (no O_NOFOLLOW here; a swap between the two is the
// remaining window).
func checkName(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", p, ErrNotRegular)
	}
	return nil
}
