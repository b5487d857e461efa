//go:build !unix

package testutil

import "time"

// CPUTime is not measured here; benchmarks then report wall time only.
func CPUTime() time.Duration { return 0 }
