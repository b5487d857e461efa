package report

import (
	"bytes"
	"encoding/hex"
	"fmt"
	stdhtml "html"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/internal/mdoc"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// HTML renders the same document as Markdown through goldmark into a
// self-contained page: inline CSS, inline SVG plots from o.SVGPlots in place
// of the comment's Mermaid charts, and no external URL, script or file, so
// it can be opened from an artifact or published as-is. Raw HTML passes
// through goldmark (WithUnsafe) only because every manifest string in the
// Markdown is escaped; the page's Content-Security-Policy forbids scripts as
// a second line of defence.
//
// The page is filterable by verdict and namespace with CSS alone (see
// pageFilter) and stays within PageLimit bytes whatever the repository:
// plots are inlined worst first within PagePlotBudget, and the details
// of the least bad autoscalers are cut as the comment cuts them (the
// ledger keeps every row), with a notice saying so.
func HTML(r contract.Report, o Options) ([]byte, error) {
	o = o.withDefaults()
	plots := inlinedPlots(r.Workloads, o.SVGPlots)
	f := newPageFilter(r.Workloads)
	limit := PageLimit - plotBytes(plots) - len(f.css()) - len(pageCSS) - 8<<10
	b := buildMarkdown(r, o, pageMedium{plots: plots, filter: f}, limit)
	b.doc.LimitName, b.doc.Whole = pageLimitName, "The JSON report carries everything."
	b.doc.Overflow = "\n\n…cut: the rest of this page did not fit; see the JSON report.\n"
	body, err := fitPage(b, limit)
	if err != nil {
		return nil, err
	}

	var page bytes.Buffer
	page.Grow(len(body) + plotBytes(plots) + 8<<10)
	page.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	page.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n")
	page.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&page, "<title>%s</title>\n", stdhtml.EscapeString(joinNonEmpty(": ", o.Title, r.Root)))
	page.WriteString("<style>\n" + pageCSS + f.css() + "</style>\n</head>\n<body>\n<main>\n")
	page.WriteString(f.controls())
	fillPlots(&page, body, plots)
	page.WriteString("</main>\n</body>\n</html>\n")
	return page.Bytes(), nil
}

// PageLimit bounds the HTML page in bytes: under 2 MB, which opens at
// once from an artifact or a browser tab however many autoscalers the
// repository holds (1,000 of them made 62 MB before the bound).
const PageLimit = 1_950_000

// PagePlotBudget bounds the bytes of SVG the page inlines: the worst
// autoscalers' plots, which a reader looks at first, about a dozen
// autoscalers' worth. Callers that draw plots only for the page (and
// --out, which writes only what the reports show) stop there too.
const PagePlotBudget = 600_000

const pageLimitName = "this page's 2 MB bound"

// fitPage converts the page's Markdown to HTML within limit bytes: it cuts
// the Markdown as the comment is cut (details of the least bad first,
// then healthy sources, then ledger rows) to a budget, converts it, and
// when the HTML came out larger than limit (tables grow most in
// conversion) cuts again to a budget scaled by the ratio it measured.
func fitPage(b mdBody, limit int) ([]byte, error) {
	gm := goldmark.New(
		goldmark.WithExtensions(extension.Strikethrough, extension.NewTable(
			// align="right" instead of a style attribute on every cell:
			// the same rendering in half the bytes.
			extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute))),
		goldmark.WithRendererOptions(html.WithUnsafe()),
	)
	budget := limit
	for {
		md := b.doc.Fit(budget, mdoc.Prefix(b.details), mdoc.Drop(b.sources), mdoc.Prefix(b.ledger))
		var out bytes.Buffer
		if err := gm.Convert([]byte(md), &out); err != nil {
			return nil, fmt.Errorf("render HTML: %w", err)
		}
		if out.Len() <= limit || budget < 4<<10 {
			return out.Bytes(), nil
		}
		budget = int(float64(budget) * float64(limit) / float64(out.Len()) * 0.97)
	}
}

// inlinedPlots keeps the SVGs the page inlines: whole workloads, worst
// first, while their bytes stay within PagePlotBudget.
func inlinedPlots(ws []contract.Workload, plots map[string][][]byte) map[string][][]byte {
	out := map[string][][]byte{}
	used := 0
	for _, w := range WorstFirst(ws) {
		svgs := plots[w.ID]
		n := 0
		for _, s := range svgs {
			n += len(s)
		}
		if len(svgs) == 0 {
			continue
		}
		if used+n > PagePlotBudget {
			break
		}
		out[w.ID], used = svgs, used+n
	}
	return out
}

// pageMedium is the self-contained page: read top to bottom with its plots
// in view, so every workload's details start open, and its pictures are
// the inline SVG plots, left as placeholders here for fillPlots to replace
// once goldmark has converted the body. Mermaid source would print as text
// between them (the page runs no script to render it), and plot files and
// uploaded images are not part of it.
type pageMedium struct {
	plots  map[string][][]byte // the SVGs inlined, by workload id
	filter *pageFilter
}

func (pageMedium) openDetails() bool { return true }

func (m pageMedium) writePlots(b *strings.Builder, w contract.Workload, _ Options, _ bool) {
	for i := range m.plots[w.ID] {
		fmt.Fprintf(b, "%s\n\n", svgPlaceholder(w.ID, i))
	}
}

func (m pageMedium) mark(w contract.Workload) string { return m.filter.mark(w) }

// fillPlots copies the converted body to page with each placeholder's
// figure in its place, in one pass over the body: a replace per plot
// rescans the whole page and is quadratic in the number of autoscalers
// (1,300 of them took more than 17 minutes). The first occurrence of a
// placeholder takes its figure; anything else that looks like one is kept
// as the comment it is, and a figure is never rescanned.
func fillPlots(page *bytes.Buffer, body []byte, plots map[string][][]byte) {
	figs := sanitizedFigures(plots)
	prefix := []byte(svgPlaceholderPrefix)
	for {
		i := bytes.Index(body, prefix)
		if i < 0 {
			break
		}
		end := bytes.Index(body[i:], []byte(" -->"))
		if end < 0 {
			break
		}
		end += i + len(" -->")
		page.Write(body[:i])
		marker := string(body[i:end])
		if fig, ok := figs[marker]; ok {
			delete(figs, marker)
			page.WriteString(fig)
		} else {
			page.WriteString(marker)
		}
		body = body[end:]
	}
	page.Write(body)
}

// sanitizedFigures maps each plot's placeholder to its figure, the SVGs
// checked on every core: the check reads every byte of every SVG with a
// case-insensitive regular expression, a few milliseconds per autoscaler,
// and each SVG is checked on its own.
func sanitizedFigures(plots map[string][][]byte) map[string]string {
	type job struct {
		marker string
		svg    []byte
	}
	var jobs []job
	for id, svgs := range plots {
		for i := range svgs {
			jobs = append(jobs, job{svgPlaceholder(id, i), svgs[i]})
		}
	}
	out := make([]string, len(jobs))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), max(len(jobs), 1))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := w; j < len(jobs); j += workers {
				out[j] = figure(jobs[j].svg)
			}
		}()
	}
	wg.Wait()
	figs := make(map[string]string, len(jobs))
	for j, jb := range jobs {
		figs[jb.marker] = out[j]
	}
	return figs
}

// figure is one plot as the page shows it, or a note where the SVG could
// reach outside the page.
func figure(svg []byte) string {
	clean, ok := inlineSVG(svg)
	if !ok {
		return `<p class="note">Plot omitted: it is not a self-contained SVG.</p>`
	}
	return `<figure class="plot">` + clean + `</figure>`
}

// plotBytes is the size of every SVG, to size the page once.
func plotBytes(plots map[string][][]byte) int {
	n := 0
	for _, svgs := range plots {
		for _, s := range svgs {
			n += len(s) + len(`<figure class="plot"></figure>`)
		}
	}
	return n
}

// svgPlaceholderPrefix starts every placeholder.
const svgPlaceholderPrefix = "<!-- capreport-svg "

// svgPlaceholder marks where a workload's i-th SVG goes. The id is
// hex-encoded so no manifest text can end the comment or forge a marker;
// escaped Markdown text cannot contain "<!--" either.
func svgPlaceholder(id string, i int) string {
	return fmt.Sprintf(svgPlaceholderPrefix+"%s %d -->", hex.EncodeToString([]byte(id)), i)
}

var (
	// xmlnsValue matches the rest of a namespace declaration from its
	// "xmlns" (see stripXMLNS).
	xmlnsValue = regexp.MustCompile(`^xmlns(:[A-Za-z]+)?\s*=\s*"[^"]*"`)
	// svgUnsafe matches anything that could run code or fetch a resource:
	// scripts, event handlers, foreign HTML, external images or references
	// (only same-document "#id" references are allowed).
	svgUnsafe = regexp.MustCompile(`(?i)<script|<foreignobject|<image|<iframe|javascript:|\son[a-z]+\s*=|href\s*=\s*["']?[^"'#\s]|url\(\s*["']?[^"'#\s)]|@import|https?:`)
)

// inlineSVG strips an SVG document to the element HTML can inline (no XML
// prolog, DOCTYPE or namespace declarations) and refuses one that could
// reach outside the page or run code.
func inlineSVG(data []byte) (string, bool) {
	s := string(data)
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", false
	}
	s = strings.TrimSpace(stripXMLNS(s[i:]))
	if svgUnsafe.MatchString(s) || !strings.HasSuffix(s, "</svg>") {
		return "", false
	}
	return s, true
}

// stripXMLNS removes namespace declarations with the whitespace before
// them: identifiers, not fetched, but they spell out http:// URLs and
// inline SVG in HTML does not need them. It removes what
// regexp `\s+xmlns(:[A-Za-z]+)?\s*=\s*"[^"]*"` replaced, but finds each
// "xmlns" with strings.Index first: that regexp, with no literal to start
// from, took 15 ms on a 57 kB plot, the largest cost of the HTML report.
func stripXMLNS(s string) string {
	var b strings.Builder
	from, kept := 0, 0 // search from here; s[:kept] is copied to b
	for {
		i := strings.Index(s[from:], "xmlns")
		if i < 0 {
			break
		}
		p := from + i
		start := p
		for start > from && isRegexpSpace(s[start-1]) {
			start--
		}
		m := xmlnsValue.FindStringIndex(s[p:])
		if start == p || m == nil {
			from = p + 1
			continue
		}
		b.WriteString(s[kept:start])
		from, kept = p+m[1], p+m[1]
	}
	if kept == 0 {
		return s
	}
	b.WriteString(s[kept:])
	return b.String()
}

// isRegexpSpace is regexp's \s: space, \t, \n, \f, \r.
func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// pageCSS is the page's only style: readable tables, collapsible details and
// plots that fit the width.
const pageCSS = `body{font:15px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1f2328;background:#fff;margin:0}
main{max-width:1100px;margin:0 auto;padding:24px}
h2{border-bottom:1px solid #d1d9e0;padding-bottom:.3em}
table{border-collapse:collapse;margin:12px 0;display:block;overflow-x:auto}
th,td{border:1px solid #d1d9e0;padding:4px 10px;vertical-align:top}
th{background:#f6f8fa}
tr:nth-child(2n) td{background:#fbfcfd}
details{border:1px solid #d1d9e0;border-radius:6px;padding:6px 12px;margin:8px 0}
summary{cursor:pointer}
pre{background:#f6f8fa;padding:10px;overflow-x:auto;font-size:12px}
blockquote{border-left:4px solid #d1d9e0;margin:0;padding:0 12px;color:#59636e}
figure.plot{margin:12px 0}
figure.plot svg{max-width:100%;height:auto}
.note{color:#59636e;font-style:italic}
`
