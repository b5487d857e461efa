package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// usage is what one side cost in one round.
type usage struct {
	cpu, user, sys time.Duration
	wall           time.Duration
	maxRSS         int64 // bytes, the largest process (ru_maxrss)
	peakPSS        int64 // bytes, the most held at once by the side's processes
	failed         int   // processes that exited non-zero (CLIs) or with status 2 (capreport)
}

// add counts one finished process.
func (u *usage) add(ps *os.ProcessState) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return
	}
	user := time.Duration(ru.Utime.Nano())
	sys := time.Duration(ru.Stime.Nano())
	u.user += user
	u.sys += sys
	u.cpu += user + sys
	// Linux reports ru_maxrss in KiB: the largest of the process and the
	// descendants it waited for.
	u.maxRSS = max(u.maxRSS, ru.Maxrss<<10)
}

// runOne runs argv to the end with stdout to out (nil: discarded) and
// returns its state and the tail of its standard error.
func runOne(ctx context.Context, argv []string, out *os.File) (*os.ProcessState, string) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout = out
	var stderr tail
	cmd.Stderr = &stderr
	_ = cmd.Run()
	return cmd.ProcessState, stderr.String()
}

// tail keeps the last 4 KiB written to it.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = append(t.b[:0], t.b[len(t.b)-4096:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return strings.TrimSpace(string(t.b)) }

// pssSampler samples, every period, the proportional set size of every
// live descendant of this process and keeps the largest sum: what one side
// held at once (capreport's parent and its workers; the CLIs running
// together). PSS shares a page among the processes mapping it, so the
// binary's text counts once however many workers run it.
type pssSampler struct {
	stop chan struct{}
	done chan struct{}
	peak int64
}

func startPSS(period time.Duration) *pssSampler {
	s := &pssSampler{stop: make(chan struct{}), done: make(chan struct{})}
	self := os.Getpid()
	go func() {
		defer close(s.done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			s.peak = max(s.peak, descendantsPSS(self))
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// end stops the sampler and returns the peak in bytes.
func (s *pssSampler) end() int64 {
	close(s.stop)
	<-s.done
	return s.peak
}

// descendantsPSS sums the PSS of every process below self.
func descendantsPSS(self int) int64 {
	parent := parents()
	var sum int64
	for pid := range parent {
		if pid != self && descends(pid, self, parent) {
			sum += pss(pid)
		}
	}
	return sum
}

func descends(pid, of int, parent map[int]int) bool {
	for i := 0; i < 64 && pid > 1; i++ {
		pid = parent[pid]
		if pid == of {
			return true
		}
	}
	return false
}

// parents maps every live process to its parent, from /proc/PID/stat.
func parents() map[int]int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]int, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) > 1 {
			out[pid], _ = strconv.Atoi(f[1])
		}
	}
	return out
}

// pss reads one process's Pss from /proc/PID/smaps_rollup, in bytes.
func pss(pid int) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// runJobs runs the CLI processes, jobs at a time, and returns what they
// cost together; failures maps each failed job's label to its last words.
func runJobs(js []job, jobs int, timeout time.Duration) (usage, map[string]string) {
	var (
		u        usage
		mu       sync.Mutex
		wg       sync.WaitGroup
		failures = map[string]string{}
		next     = make(chan job)
	)
	sampler := startPSS(20 * time.Millisecond)
	start := time.Now()
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				ps, stderr := runOne(ctx, j.argv, nil)
				cancel()
				mu.Lock()
				if ps != nil {
					u.add(ps)
				}
				if ps == nil || !ps.Success() {
					u.failed++
					failures[j.label] = stderr
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range js {
		next <- j
	}
	close(next)
	wg.Wait()
	u.wall = time.Since(start)
	u.peakPSS = sampler.end()
	return u, failures
}

// runCapreport runs the capreport command once, its JSON report to out.
func runCapreport(argv []string, out *os.File) (usage, string) {
	var u usage
	sampler := startPSS(20 * time.Millisecond)
	start := time.Now()
	ps, stderr := runOne(context.Background(), argv, out)
	u.wall = time.Since(start)
	u.peakPSS = sampler.end()
	if ps != nil {
		u.add(ps)
	}
	// Exit status 1 is a failing check, which is a report like any other.
	if ps == nil || ps.ExitCode() > 1 || ps.ExitCode() < 0 {
		u.failed++
	}
	return u, stderr
}
