package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/capreport/capreport/render"
)

// profileModes are what --profile records, as kubectl's flag of the same
// name: a CPU profile over the whole command, or the heap at its end.
var profileModes = []string{"none", "cpu", "heap"}

// profiler records the profile --profile asks for into --profile-output.
type profiler struct {
	mode, output string
	cpuFile      *os.File
}

// start begins a CPU profile; the heap is written by stop.
func (p *profiler) start() error {
	if err := checkValue("profile", p.mode, profileModes...); err != nil {
		return err
	}
	if p.mode == "none" {
		return nil
	}
	// The renders run in worker processes, which inherit this.
	if err := os.Setenv(render.WorkerProfileEnv, p.mode+":"+p.output+".worker"); err != nil {
		return err
	}
	if p.mode != "cpu" {
		return nil
	}
	f, err := os.Create(p.output)
	if err != nil {
		return fmt.Errorf("--profile-output: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--profile cpu: %w", err)
	}
	p.cpuFile = f
	return nil
}

// stop ends the CPU profile or writes the heap profile (after a GC, so it
// shows what is live at the end of the command).
func (p *profiler) stop() error {
	if p.mode != "none" {
		_ = os.Unsetenv(render.WorkerProfileEnv) // workers started later are not profiled
	}
	switch {
	case p.cpuFile != nil:
		pprof.StopCPUProfile()
		err := p.cpuFile.Close()
		p.cpuFile = nil
		return err
	case p.mode == "heap":
		f, err := os.Create(p.output)
		if err != nil {
			return fmt.Errorf("--profile-output: %w", err)
		}
		runtime.GC()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}
