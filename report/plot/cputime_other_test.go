//go:build !unix

package plot

import "time"

// cpuTime is not measured here; the benchmark then reports ns/op only.
func cpuTime() time.Duration { return 0 }
