//go:build unix

package safefile

import (
	"errors"
	"syscall"
)

// nonBlock keeps the open of a FIFO from waiting for a writer (a device's
// open from waiting on it); the file is refused on fstat right after.
const (
	nonBlock = syscall.O_NONBLOCK
	noFollow = syscall.O_NOFOLLOW
)

// isLoop is the error of an O_NOFOLLOW open of a symlink.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
