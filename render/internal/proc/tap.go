package proc

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Lines a worker writes to its standard error for the tap.
const (
	// EndMarker closes the output of one request; the request ID follows.
	EndMarker = "\x00capreport-render-end "
	// ReadyMarker says the worker's process has started: its package
	// initialization, most of a worker's start, is done.
	ReadyMarker = "\x00capreport-render-ready"
)

// Bounds on what a worker's standard error may cost its parent.
const (
	maxLogLine  = 1000 // bytes kept of one line
	maxLogLines = 200  // lines kept per request (the first ones)
	maxTail     = 40   // last lines kept for a crash report
)

// Tap reads a worker's standard error line by line and files each
// line under the request the worker was serving: the worker writes an end
// marker after each request, so a line is attributed exactly.
type Tap struct {
	mu      sync.Mutex
	lines   []string
	dropped int
	tail    []string
	ended   map[uint64]chan struct{}
	eof     chan struct{} // closed when the worker's stderr closes
	ready   func()        // called when the worker says it has started; nil after
}

func NewTap(r io.Reader, ready func()) *Tap {
	t := &Tap{ended: map[uint64]chan struct{}{}, eof: make(chan struct{}), ready: ready}
	go t.read(r)
	return t
}

// Closed is closed when the worker's standard error closes: the tap has
// read it to the end.
func (t *Tap) Closed() <-chan struct{} { return t.eof }

func (t *Tap) read(r io.Reader) {
	defer close(t.eof)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readBoundedLine(br)
		if line != "" || err == nil {
			t.add(line)
		}
		if err != nil {
			return
		}
	}
}

// readBoundedLine reads one line, keeping at most maxLogLine bytes of it.
func readBoundedLine(br *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		chunk, isPrefix, err := br.ReadLine()
		if b.Len() < maxLogLine {
			b.Write(chunk[:min(len(chunk), maxLogLine-b.Len())])
		}
		if err != nil || !isPrefix {
			return b.String(), err
		}
	}
}

func (t *Tap) add(line string) {
	if t.ready != nil && line == ReadyMarker {
		// Once: the worker prints it before its first setup, and the same
		// line printed by a render later is only a line. (Only read calls
		// add, so ready needs no lock.)
		ready := t.ready
		t.ready = nil
		ready()
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := strings.CutPrefix(line, EndMarker); ok {
		if n, err := strconv.ParseUint(id, 10, 64); err == nil {
			if ch, ok := t.ended[n]; ok {
				close(ch)
				delete(t.ended, n)
			}
		}
		return
	}
	if len(t.tail) == maxTail {
		t.tail = t.tail[1:]
	}
	t.tail = append(t.tail, line)
	if len(t.lines) < maxLogLines {
		t.lines = append(t.lines, line)
	} else {
		t.dropped++
	}
}

// begin starts collecting lines for request id.
func (t *Tap) Begin(id uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines, t.dropped, t.tail = nil, 0, nil
	t.ended[id] = make(chan struct{})
}

var ErrNoEndMarker = errors.New("the render worker did not close its log")

// end waits for request id's end marker and returns its lines and how many
// more it printed past maxLogLines.
func (t *Tap) End(id uint64, wait time.Duration) ([]string, int, error) {
	t.mu.Lock()
	ch, ok := t.ended[id]
	t.mu.Unlock()
	if ok {
		select {
		case <-ch:
		case <-time.After(wait):
			return nil, 0, ErrNoEndMarker
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	lines, dropped := t.lines, t.dropped
	t.lines = nil
	return lines, dropped, nil
}

// lastLines returns what the worker printed for the current request, its
// first and last lines, for a crash report; it waits briefly for the
// stream to close so a dying worker's last words are in. A Go runtime's
// fatal error comes first, then a long goroutine dump.
func (t *Tap) LastLines(wait time.Duration) []string {
	select {
	case <-t.eof:
	case <-time.After(wait):
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append(append([]string(nil), t.lines...), t.tail...)
}
