package cmdutil

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/gcpace"
	"github.com/capreport/capreport/internal/safefile"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/artifact"
)

// Reading saved reports, for every command that takes them (merge, diff
// --base-json/--head-json, comment, summary): a report may be an artifact
// anyone wrote, so each is a regular file read within a bound, decoded as
// it is read, and held to the schema.

// DefaultMaxReportBytes caps a JSON report read by comment, issue,
// summary, merge (each input, and all together) and diff, and a
// report and its --base together. A compact report (the default) takes
// about 15.6 KB per autoscaler: 10,000 autoscalers are 156 MB, and
// 256 MiB holds some 17,000, while a hostile artifact still cannot
// make capreport read more. A report is decoded as it is read, a
// workload at a time (artifact.Read), and its decoded form takes about
// 1.5 bytes a byte (one decoding to more than twice the bound is
// refused, maxDecodedFor); the collector runs at GOGC 50 meanwhile,
// held near what the reports may decode to (TightenGCForReports): at
// the bound, summary took 0.69 GB, merge 0.71 GB, a summary --base of
// two reports with nothing in common 0.94 GB, 24-31 s on a 2-core
// machine (docs/security.md).
const DefaultMaxReportBytes = 256 << 20

// TightenGCForReports lets the heap grow by half of what is live between
// collections, not by all of it, in a command that reads reports within
// limit bytes together and little else: reading one, the live heap grows
// steadily (the decoded workloads) under much short-lived garbage (the
// schema's walk), and the default lets the heap reach twice the decoded
// report. merge of a 256 MiB report: 1.06 GB resident and 25 s by
// default, 0.82 GB and 30 s this way. Near the decoded bound the
// collector works harder still (a soft memory limit of what the reports
// may decode to, maxDecodedFor, and the in-flight workloads' schema
// walk): a report written to inflate to just under that bound took
// 0.90 GB at GOGC 50 alone, 0.67 GB with the limit, 16 s against 15 s.
// A GOGC or GOMEMLIMIT of the runner's wins (gcpace).
func TightenGCForReports(limit int64) {
	gcpace.SetPercent(50)
	gcpace.SetLimit(maxDecodedFor(limit) + 80<<20)
}

// ReportBudget bounds the reports one command reads together (a report
// and its base, read side by side by diff): each file's size is taken
// from what is left before a byte of it is read, so that a second report
// over the rest is refused unread. Files read side by side are reserved
// first, in a fixed order, so that which one is refused does not depend
// on which goroutine ran first.
type ReportBudget struct {
	mu       sync.Mutex
	left     int64
	limit    int64
	bound    string           // names the bound and the way out, for messages
	reserved map[string]int64 // sizes taken by reserve, not yet read
	refused  map[string]error // what reserve refused, returned by read
}

// NewReportBudget is a budget of limit bytes; bound names it in messages.
func NewReportBudget(limit int64, bound string) *ReportBudget {
	return &ReportBudget{left: limit, limit: limit, bound: bound,
		reserved: map[string]int64{}, refused: map[string]error{}}
}

// Reserve takes the sizes of the reports at paths, in order, from what
// is left; read then reads each within its reservation, or returns why
// it was refused. An empty path is skipped.
func (b *ReportBudget) Reserve(paths ...string) {
	for _, path := range paths {
		if path == "" {
			continue
		}
		size, err := b.take(path)
		b.mu.Lock()
		if err != nil {
			b.refused[path] = err
		} else {
			b.reserved[path] = size
		}
		b.mu.Unlock()
	}
}

// Read reads the report at path within what is left, or within what
// reserve took for it.
func (b *ReportBudget) Read(path string, v *report.Validator) (*contract.Report, error) {
	b.mu.Lock()
	size, ok := b.reserved[path]
	err := b.refused[path]
	b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if !ok {
		if size, err = b.take(path); err != nil {
			return nil, err
		}
	}
	return ReadReportLimited(path, size, v)
}

// take takes the size of the file at path from what is left: the bound
// a reader holds it to. A path that is not a regular file takes nothing
// (the reader's error names what it is) and is held to the whole bound.
func (b *ReportBudget) take(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return b.limit, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if fi.Size() > b.left {
		used := b.limit - b.left
		if used == 0 {
			return 0, reportFileError(path, b.limit, &safefile.TooLargeError{Path: path, Limit: b.limit})
		}
		return 0, &UsageError{Msg: fmt.Sprintf("%s: with the other report's %d bytes, more than %s allows together", path, used, b.bound)}
	}
	b.left -= fi.Size()
	return fi.Size(), nil
}

// ReadReportLimited reads a report of at most limit bytes and, given a
// validator, checks it against the JSON schema as it decodes: a report
// may come from an artifact anyone wrote, and one without workloads or
// sources would be merged or posted as if it had none. A file that is not one, or
// carries another schema version, is a usage error naming the file,
// because the fix is on the command line (another file, or a capreport of
// the same version).
func ReadReportLimited(path string, limit int64, v *report.Validator) (*contract.Report, error) {
	r, _, err := ReadReportCounted(path, limit, v)
	return r, err
}

// ReadReportCounted is ReadReportLimited that also says how many bytes
// it read. The file is a regular file (a symlink to one is followed, the
// user named it), checked before it is opened and on the open file,
// opened without waiting, and decoded as it is read (artifact.Read):
// memory holds the decoded report, never the file's text.
func ReadReportCounted(path string, limit int64, v *report.Validator) (*contract.Report, int64, error) {
	f, err := safefile.OpenLimited(path, limit, true)
	if err != nil {
		return nil, 0, reportFileError(path, limit, err)
	}
	defer f.Close()
	r, err := artifact.ReadWithin(path, f, v, maxDecodedFor(limit))
	var tl *safefile.TooLargeError
	if errors.As(err, &tl) || f.N() > limit { // grew while read
		return nil, 0, reportFileError(path, limit, &safefile.TooLargeError{Path: path, Limit: limit})
	}
	if err != nil {
		return nil, 0, &UsageError{Msg: err.Error()}
	}
	return r, f.N(), nil
}

// maxDecodedFor bounds the decoded workloads of a report read within
// limit bytes: twice the text (capreport's own take 1.5 times it), and
// room for a small report's fixed costs. A report written to inflate
// (timelines of one-digit numbers) is refused, not held at 4 times.
func maxDecodedFor(limit int64) int64 { return 2*limit + 16<<20 }

// reportFileError is the usage error of a report file that cannot be
// read: not a regular file, too large, or missing.
func reportFileError(path string, limit int64, err error) error {
	var nr *safefile.NotRegularError
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &nr):
		return &UsageError{Msg: nr.Error()}
	case errors.As(err, &tl):
		return &UsageError{Msg: fmt.Sprintf("%s: larger than %d bytes (--max-report-bytes)", path, limit), Err: tl}
	default:
		return &UsageError{Msg: fmt.Sprintf("%s: %v", path, UnwrapPathError(err))}
	}
}

// UnwrapPathError drops the path os.ReadFile repeats, since the message
// already starts with it.
func UnwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
