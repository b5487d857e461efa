package proc

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
)

// ProfileEnv, set to "cpu:PREFIX" or "heap:PREFIX" in the parent's
// environment, makes every render worker it starts write that profile to
// PREFIX.PID when it ends. Renders run in workers, processes of their own,
// so the parent's profile never sees them; go tool pprof merges the files.
const ProfileEnv = "CAPREPORT_WORKER_PROFILE"

// StartProfile starts what ProfileEnv asks for and returns the
// function that writes it; a profile that cannot be written is reported on
// standard error (the source's log) and the worker renders on.
func StartProfile() (stop func()) {
	mode, prefix, ok := strings.Cut(os.Getenv(ProfileEnv), ":")
	if !ok || (mode != "cpu" && mode != "heap") {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", prefix, os.Getpid()))
	if err != nil {
		fmt.Fprintf(os.Stderr, "capreport render worker: profile: %v\n", err)
		return func() {}
	}
	if mode == "cpu" {
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "capreport render worker: profile: %v\n", err)
		}
		return func() { pprof.StopCPUProfile(); f.Close() }
	}
	return func() {
		runtime.GC()
		_ = pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
}
