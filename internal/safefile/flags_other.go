//go:build !unix

package safefile

// Elsewhere there are no FIFOs to block on, and the Lstat before the open
// is what refuses a symlink.
const (
	nonBlock = 0
	noFollow = 0
)

func isLoop(error) bool { return false }
