package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
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
	peakSum        int64 // bytes, the largest sum of RSS of the side's processes at once
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

// runOne runs argv to the end with stdout to out (nil: discarded), its
// processes sampled by ps, and returns its state and the tail of its
// standard error.
func runOne(ctx context.Context, argv []string, out *os.File, ps *rssSampler) (*os.ProcessState, string) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout = out
	var stderr tail
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err.Error()
	}
	ps.track(cmd.Process.Pid)
	_ = cmd.Wait()
	ps.untrack(cmd.Process.Pid)
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

// rssSampler samples, every samplePeriod, the resident set size of the
// processes it tracks and, when asked, of their descendants, and keeps the
// largest sum: what one side held at once (capreport's parent and its
// workers; the CLIs running together). A binary's text pages count once per
// process that maps them, on both sides alike. It reads /proc/PID/statm
// (microseconds; smaps_rollup's PSS takes milliseconds on a busy Go
// process and holds its memory map lock); descendants are looked up in
// /proc at periods 1, 2, 4, ... 32 and then every rescan periods (a
// 10-20 ms scan; capreport's workers live for the whole run). A sampled
// sum below the largest process's ru_maxrss missed that peak, and the
// largest process is shown instead: the peak is at least that.
type rssSampler struct {
	mu    sync.Mutex
	roots map[int]bool
	stop  chan struct{}
	done  chan struct{}
	peak  int64
}

const (
	samplePeriod = 20 * time.Millisecond
	rescan       = 50
)

func startRSS(withDescendants bool) *rssSampler {
	s := &rssSampler{roots: map[int]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(samplePeriod)
		defer t.Stop()
		var below []int
		for i := 0; ; i++ {
			roots := s.tracked()
			if withDescendants && (i&(i-1) == 0 || i%rescan == 0) {
				below = descendants(roots)
			}
			var sum int64
			for _, pid := range append(roots, below...) {
				sum += rss(pid)
			}
			s.peak = max(s.peak, sum)
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) track(pid int) {
	s.mu.Lock()
	s.roots[pid] = true
	s.mu.Unlock()
}

func (s *rssSampler) untrack(pid int) {
	s.mu.Lock()
	delete(s.roots, pid)
	s.mu.Unlock()
}

func (s *rssSampler) tracked() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]int, 0, len(s.roots))
	for pid := range s.roots {
		out = append(out, pid)
	}
	return out
}

// end stops the sampler and returns the peak in bytes.
func (s *rssSampler) end() int64 {
	close(s.stop)
	<-s.done
	return s.peak
}

// descendants lists the live processes below roots (roots excluded).
func descendants(roots []int) []int {
	if len(roots) == 0 {
		return nil
	}
	parent := parents()
	isRoot := map[int]bool{}
	for _, r := range roots {
		isRoot[r] = true
	}
	var out []int
	for pid := range parent {
		if !isRoot[pid] && descends(pid, isRoot, parent) {
			out = append(out, pid)
		}
	}
	return out
}

func descends(pid int, of map[int]bool, parent map[int]int) bool {
	for i := 0; i < 64 && pid > 1; i++ {
		pid = parent[pid]
		if of[pid] {
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

var pageSize = int64(os.Getpagesize())

// rss reads one process's resident set size from /proc/PID/statm, in bytes.
func rss(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * pageSize
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
	sampler := startRSS(false)
	start := time.Now()
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				ps, stderr := runOne(ctx, j.argv, nil, sampler)
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
	u.peakSum = max(sampler.end(), u.maxRSS)
	return u, failures
}

// runCapreport runs the capreport command once, its JSON report to out.
func runCapreport(argv []string, out *os.File) (usage, string) {
	var u usage
	sampler := startRSS(true)
	start := time.Now()
	ps, stderr := runOne(context.Background(), argv, out, sampler)
	u.wall = time.Since(start)
	u.peakSum = sampler.end()
	if ps != nil {
		u.add(ps)
	}
	u.peakSum = max(u.peakSum, u.maxRSS)
	// Exit status 1 is a failing check, which is a report like any other.
	if ps == nil || ps.ExitCode() > 1 || ps.ExitCode() < 0 {
		u.failed++
	}
	return u, stderr
}

// median is the round of the median CPU.
func median(runs []usage) usage {
	s := slices.Clone(runs)
	slices.SortFunc(s, func(a, b usage) int { return int(a.cpu - b.cpu) })
	return s[len(s)/2]
}
