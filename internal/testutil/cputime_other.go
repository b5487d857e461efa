//go:build !unix

package testutil

import "time"

// CPUTime is not measured here; benchmarks then report wall time only.
func CPUTime() time.Duration { return 0 }

// ChildrenCPUTime is not measured here.
func ChildrenCPUTime() (time.Duration, int64) { return 0, 0 }
