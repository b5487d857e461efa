package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/internal/safetext"
)

// TerminalSafe makes manifest text safe to print on a terminal (control
// characters and bidi overrides shown escaped), for Text and for callers
// outside the package that format a line of their own; the rules are
// safetext's, shared with the pull-request diff.
func TerminalSafe(s string) string { return safetext.Terminal(s) }

// ANSI colours. All codes have the same length so tabwriter, which counts
// bytes, keeps coloured columns aligned.
const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiGrey   = "\x1b[90m"
	ansiBold   = "\x1b[01m"
	ansiReset  = "\x1b[0m"
)

// painter applies colour only when enabled; with colour off it is the
// identity, so the plain output is byte-for-byte the coloured one stripped.
type painter bool

func (p painter) paint(code, s string) string {
	if !p {
		return s
	}
	return code + s + ansiReset
}

func (p painter) verdict(v string) string {
	switch v {
	case contract.VerdictFail:
		return p.paint(ansiRed, v)
	case contract.VerdictWarn:
		return p.paint(ansiYellow, v)
	case contract.VerdictPass:
		return p.paint(ansiGreen, v)
	}
	return p.paint(ansiGrey, v)
}

func (p painter) severity(s string) string {
	switch s {
	case check.SeverityError:
		return p.paint(ansiRed, s)
	case check.SeverityWarning:
		return p.paint(ansiYellow, s)
	}
	return p.paint(ansiGrey, s)
}

func (p painter) status(s string) string {
	switch s {
	case "failed":
		return p.paint(ansiRed, s)
	case "skipped":
		return p.paint(ansiYellow, s)
	}
	return p.paint(ansiGreen, s)
}

// Text renders the terminal ledger: one aligned row per workload, worst
// first, then each workload's findings with their remediations, the findings
// that belong to no workload, and the sources with their status.
func Text(r contract.Report, o Options) ([]byte, error) {
	o = o.withDefaults()
	p := painter(o.Color)
	var buf bytes.Buffer

	fmt.Fprintf(&buf, "%s %s\n\n", p.paint(ansiBold, "capreport"), TerminalSafe(r.Root))

	ws := WorstFirst(r.Workloads)
	if len(ws) == 0 {
		buf.WriteString("No autoscalers found" + deliveredNone(r) + ".\n")
	} else {
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		// The header's first cell is bold so every cell of the coloured
		// column carries the same number of invisible bytes: tabwriter counts
		// bytes, and equal overhead keeps the columns aligned.
		fmt.Fprintf(tw, "%s\tWORKLOAD\tSIGNAL\tLATENCY\tBILL\n", p.paint(ansiBold, "VERDICT"))
		for _, w := range ws {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.verdict(w.Verdict), TerminalSafe(w.ID),
				TerminalSafe(w.Signal), latencyKey(w.Latency), TerminalSafe(billKey(w)))
		}
		if err := tw.Flush(); err != nil {
			return nil, fmt.Errorf("text ledger: %w", err)
		}
	}
	if n := r.Summary.NotFollowed; n > 0 {
		fmt.Fprintf(&buf, "\n%d GitOps %s not followed: what %s is missing from this report (see the findings outside any autoscaler).\n",
			n, plural(n, "object", "objects"), plural(n, "it delivers", "they deliver"))
	}

	wroteHeader := false
	for _, w := range ws {
		if len(w.Findings) == 0 {
			continue
		}
		if !wroteHeader {
			buf.WriteString("\nFindings\n")
			wroteHeader = true
		}
		fmt.Fprintf(&buf, "\n  %s  %s  at %s%s\n", p.verdict(w.Verdict), TerminalSafe(w.ID), TerminalSafe(w.Source.String()), reasonSuffix(w))
		if chain := w.Source.ChainString(); chain != "" {
			fmt.Fprintf(&buf, "    delivered by %s\n", TerminalSafe(chain))
		}
		writeTextFindings(&buf, p, w.Findings, "    ")
	}
	if len(r.Findings) > 0 {
		buf.WriteString("\nFindings outside any autoscaler\n\n")
		writeTextFindings(&buf, p, r.Findings, "  ")
	}

	if len(r.Sources) > 0 {
		buf.WriteString("\nSources\n\n")
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  %s\tSOURCE\tTYPE\tOBJECTS\tREASON\n", p.paint(ansiBold, "STATUS"))
		for _, s := range r.Sources {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\n", p.status(s.Status), TerminalSafe(sourceName(s)),
				TerminalSafe(s.Type), s.Objects, TerminalSafe(s.Reason))
		}
		if err := tw.Flush(); err != nil {
			return nil, fmt.Errorf("text sources: %w", err)
		}
	}

	fmt.Fprintf(&buf, "\n%s\n", summaryLine(r.Summary))
	if !o.NoFooter {
		buf.WriteString(TextFooter(r))
	}
	return trimTrailingSpace(buf.Bytes()), nil
}

// TextFooter is the last line of a terminal page: the tool, its version and
// when it ran, after everything else (a command that prints more after the
// ledger, such as explain, writes it last itself). "" without a tool name.
func TextFooter(r contract.Report) string {
	if r.Tool.Name == "" {
		return ""
	}
	return "\n" + TerminalSafe(strings.TrimSpace(r.Tool.Name+" "+r.Tool.Version+" "+r.GeneratedAt)) + "\n"
}

// trimTrailingSpace drops the padding tabwriter leaves after an empty last
// cell, so golden files and copy-pasted output carry no invisible spaces.
func trimTrailingSpace(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimRight(l, " ")
	}
	return bytes.Join(lines, []byte("\n"))
}

// writeTextFindings prints findings worst first, each with its fix and
// location on continuation lines so long messages stay readable.
func writeTextFindings(w io.Writer, p painter, fs []contract.Finding, indent string) {
	for _, f := range sortedFindings(fs) {
		sev := p.severity(f.Severity)
		if f.Ignored {
			sev = p.paint(ansiGrey, "ignored")
		}
		pad := strings.Repeat(" ", max(0, len("warning")-len(visibleSeverity(f))))
		fmt.Fprintf(w, "%s%s%s  %s: %s\n", indent, sev, pad, TerminalSafe(f.Check), TerminalSafe(f.Message))
		cont := indent + strings.Repeat(" ", len("warning")+2)
		if f.Ignored && f.IgnoreReason != "" {
			fmt.Fprintf(w, "%signored: %s\n", cont, TerminalSafe(f.IgnoreReason))
		}
		if f.Remediation != "" {
			fmt.Fprintf(w, "%sfix: %s\n", cont, TerminalSafe(f.Remediation))
		}
		if len(f.RestsOn) > 0 {
			fmt.Fprintf(w, "%srests on: %s\n", cont, TerminalSafe(RestsOnText(f)))
		}
		if f.Location != nil && f.Location.File != "" {
			fmt.Fprintf(w, "%sat %s\n", cont, TerminalSafe(f.Location.String()))
		}
	}
}

// visibleSeverity is the severity word as printed, for padding without
// counting colour codes.
func visibleSeverity(f contract.Finding) string {
	if f.Ignored {
		return "ignored"
	}
	return f.Severity
}

// deliveredNone says, for a report without autoscalers, that the GitOps
// deliveries it rendered hold none ("" when it rendered none).
func deliveredNone(r contract.Report) string {
	n, withheld := 0, 0
	for _, s := range r.Sources {
		if len(s.Chain) > 0 {
			n++
		}
		if s.Status == "withheld" {
			withheld++
		}
	}
	if n == 0 {
		return ""
	}
	text := fmt.Sprintf(": the %d GitOps %s rendered deliver none", n, plural(n, "delivery", "deliveries"))
	if withheld > 0 {
		text += fmt.Sprintf(", and %d %s beneath a failed build %s withheld (see Findings)", withheld, plural(withheld, "source", "sources"), plural(withheld, "is", "are"))
	}
	return text
}

// RestsOnText lists a finding's deciding assumptions with their
// provenance ("deadTime 90s (annotation), overload 3x,10x,30x (default)"),
// and says when defaults capped its severity.
func RestsOnText(f contract.Finding) string {
	parts := make([]string, 0, len(f.RestsOn))
	for _, b := range f.RestsOn {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", b.Assumption, b.Value, b.From))
	}
	s := strings.Join(parts, ", ")
	if f.Capped() {
		s += "; at most a warning while a default decides it (state or measure the defaults, or set failOnDefaults)"
	}
	return s
}

// reasonSuffix is " — rests on defaults" for a qualified verdict.
func reasonSuffix(w contract.Workload) string {
	if w.VerdictReason == "" {
		return ""
	}
	return " — " + TerminalSafe(w.VerdictReason)
}
