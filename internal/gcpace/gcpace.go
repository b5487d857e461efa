// Package gcpace paces the garbage collector of a short command. Go's
// default starts collecting at a 4 MiB heap and again each time the heap
// doubles; a diff's parent, which decodes a few tens of megabytes of
// cached renders and exits a tenth of a second later, spent a sixth of
// its CPU collecting garbage it would never have reused. Start lets the
// heap grow to a limit before the first collection, then hands the pacing
// back to the default once the live heap is a large part of the limit, so
// a large run is collected as it always was.
package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// pacing is what the default pacing returns with: the GOGC a command
// asked for (SetPercent), and whether it has returned.
var pacing = struct {
	sync.Mutex
	percent  int
	limit    int64
	returned bool
}{percent: 100, limit: math.MaxInt64, returned: true}

// Start makes the collector first run when the heap reaches limit bytes.
// After each collection it checks the live heap: past half the limit, the
// default pacing (GOGC=100, or SetPercent's; no memory limit, or SetLimit's) returns for the rest of the
// process, so that its peak is at most the larger of the limit and what
// the default would reach. A GOGC or GOMEMLIMIT in the environment is the
// user's pacing, and Start leaves it alone.
func Start(limit int64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	pacing.Lock()
	pacing.returned = false
	pacing.Unlock()
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	arm(limit)
}

// SetPercent sets the GOGC of the default pacing: now if it has returned
// (or Start never held it), else when it returns. A command whose live
// heap grows steadily under short-lived garbage (reading a large report)
// asks for less than 100. A GOGC in the environment is the user's.
func SetPercent(percent int) {
	if os.Getenv("GOGC") != "" {
		return
	}
	pacing.Lock()
	defer pacing.Unlock()
	pacing.percent = percent
	if pacing.returned {
		debug.SetGCPercent(percent)
	}
}

// SetLimit sets the soft memory limit of the default pacing: now if it
// has returned (or Start never held it), else when it returns. A command
// whose live heap is bounded by what it reads (reports within their
// bound) asks the collector to work harder near that bound rather than
// let the heap grow by GOGC past it. A GOMEMLIMIT in the environment is
// the user's.
func SetLimit(bytes int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	pacing.Lock()
	defer pacing.Unlock()
	pacing.limit = bytes
	if pacing.returned {
		debug.SetMemoryLimit(bytes)
	}
}

// sentinel is an object that only a collection frees: its cleanup runs
// after the cycle that found it unreachable.
type sentinel struct{ _ [16]byte }

func arm(limit int64) {
	runtime.AddCleanup(&sentinel{}, check, limit)
}

// check runs after a collection: it hands back the default pacing, or
// waits for the next collection.
func check(limit int64) {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() <= uint64(limit/2) {
		arm(limit)
		return
	}
	pacing.Lock()
	defer pacing.Unlock()
	pacing.returned = true
	debug.SetGCPercent(pacing.percent)
	debug.SetMemoryLimit(pacing.limit)
}
