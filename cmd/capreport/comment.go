package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"

	ghreport "github.com/capreport/capreport/report/github"
)

// lookupEnv reads one environment variable; injected so that tests never
// touch the process environment.
type lookupEnv func(string) (string, bool)

// maxBodyFileBytes bounds what --body-file reads: 65,536 characters of up
// to four bytes each.
const maxBodyFileBytes = 4*ghreport.MaxBodyChars + 1

// githubOptions are the flags `comment` and `issue` share.
type githubOptions struct {
	repo     string
	apiURL   string
	bodyFile string
	dryRun   bool

	env        lookupEnv
	httpClient *http.Client // nil: the library's default
}

func (o *githubOptions) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&o.repo, "repo", "", "repository as OWNER/NAME (default $GITHUB_REPOSITORY)")
	fl.StringVar(&o.bodyFile, "body-file", "-", "file holding the Markdown body, - for stdin; its first line is the hidden marker")
	fl.StringVar(&o.apiURL, "github-api-url", "", "GitHub API URL, e.g. https://ghe.example.com/api/v3/ (default $GITHUB_API_URL, else https://api.github.com/)")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print what would be posted and where, without contacting GitHub")
}

// commentOptions are the inputs of `capreport comment`.
type commentOptions struct {
	githubOptions
	pr       int
	behavior string
}

func newCommentCmd(io *streams) *cobra.Command { return newCommentCmdF(io, os.LookupEnv, nil) }

// newCommentCmdF builds the command; runF, when set, receives the parsed
// options instead of running (flag-parsing tests).
func newCommentCmdF(io *streams, env lookupEnv, runF func(context.Context, *commentOptions) error) *cobra.Command {
	o := &commentOptions{githubOptions: githubOptions{env: env}}
	cmd := &cobra.Command{
		Use:   "comment --repo OWNER/NAME --pr N [--body-file FILE|-]",
		Short: "Post the report as the pull request's sticky comment",
		Long: "comment posts a Markdown body (capreport diff --format markdown) on a pull request as one\n" +
			"sticky comment, found again by the hidden marker on the body's first line.\n\n" +
			"Behaviours: update (edit the latest marked comment in place, create it if absent; nothing is\n" +
			"written when the body is unchanged), new (always create), hide-and-new (minimize earlier\n" +
			"marked comments as outdated, then create), delete-and-new (delete them, then create).\n\n" +
			"The token comes from GITHUB_TOKEN, else GH_TOKEN; it needs pull-requests: write. A pull\n" +
			"request from a fork gets a read-only token: comment from a workflow_run job instead\n" +
			"(docs/github-action.md).",
		Example: "  capreport diff deploy --base-ref origin/main > comment.md\n" +
			"  GITHUB_TOKEN=... capreport comment --repo acme/deploy --pr 42 --body-file comment.md",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runComment(cmd.Context(), io, o)
		},
	}
	o.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&o.pr, "pr", 0, "pull request number")
	fl.StringVar(&o.behavior, "behavior", string(ghreport.BehaviorUpdate), "update, new, hide-and-new or delete-and-new")
	return cmd
}

func runComment(ctx context.Context, io *streams, o *commentOptions) error {
	owner, name, err := o.ownerRepo()
	if err != nil {
		return err
	}
	if o.pr <= 0 {
		return flagErrorf("pr", "the pull request number is required and must be positive")
	}
	behavior, err := ghreport.ParseBehavior(o.behavior)
	if err != nil {
		return flagErrorf("behavior", "%w", err)
	}
	body, marker, err := o.readBody(io)
	if err != nil {
		return err
	}
	where := fmt.Sprintf("%s/%s#%d", owner, name, o.pr)
	if o.dryRun {
		fmt.Fprintf(io.ErrOut, "dry run: would post a comment on %s (behavior %s, marker %s, %d characters) to %s\n",
			where, behavior, marker, len([]rune(body)), o.apiDisplay())
		_, err := io.Out.Write([]byte(body))
		return err
	}
	c, err := o.client()
	if err != nil {
		return err
	}
	res, err := c.UpsertPRComment(ctx, owner, name, o.pr, body, behavior)
	if err != nil {
		return err
	}
	if n := len(res.Hidden); n > 0 {
		fmt.Fprintf(io.ErrOut, "hid %d earlier comment(s) on %s\n", n, where)
	}
	if n := len(res.Deleted); n > 0 {
		fmt.Fprintf(io.ErrOut, "deleted %d earlier comment(s) on %s\n", n, where)
	}
	fmt.Fprintf(io.ErrOut, "%s comment %d on %s\n", describe(res.Action), res.ID, where)
	fmt.Fprintln(io.Out, res.URL)
	return nil
}

// issueOptions are the inputs of `capreport issue`.
type issueOptions struct {
	githubOptions
	title  string
	labels []string
}

func newIssueCmd(io *streams) *cobra.Command { return newIssueCmdF(io, os.LookupEnv, nil) }

func newIssueCmdF(io *streams, env lookupEnv, runF func(context.Context, *issueOptions) error) *cobra.Command {
	o := &issueOptions{githubOptions: githubOptions{env: env}}
	cmd := &cobra.Command{
		Use:   "issue --repo OWNER/NAME --title T [--label capreport] [--body-file FILE|-]",
		Short: "Keep the repository-wide report as one living issue",
		Long: "issue keeps a scheduled report (capreport --format markdown) as one open issue: the newest\n" +
			"open issue with the labels whose body starts with the same hidden marker gets the new title\n" +
			"and body; without one, an issue is opened with the labels. Nothing is written when the\n" +
			"body and title are unchanged.\n\n" +
			"The token comes from GITHUB_TOKEN, else GH_TOKEN; it needs issues: write.",
		Example: "  capreport deploy --format markdown > report.md\n" +
			"  GITHUB_TOKEN=... capreport issue --repo acme/deploy --title 'Autoscaler report' --body-file report.md",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runIssue(cmd.Context(), io, o)
		},
	}
	o.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&o.title, "title", "", "the issue's title")
	fl.StringSliceVar(&o.labels, "label", []string{"capreport"}, "label the issue carries and is found by (repeatable)")
	return cmd
}

func runIssue(ctx context.Context, io *streams, o *issueOptions) error {
	owner, name, err := o.ownerRepo()
	if err != nil {
		return err
	}
	if strings.TrimSpace(o.title) == "" {
		return flagErrorf("title", "the issue's title is required")
	}
	for _, l := range o.labels {
		if strings.TrimSpace(l) == "" {
			return flagErrorf("label", "a label cannot be empty")
		}
	}
	body, marker, err := o.readBody(io)
	if err != nil {
		return err
	}
	where := owner + "/" + name
	if o.dryRun {
		fmt.Fprintf(io.ErrOut, "dry run: would create or update the open issue %q labelled %s in %s (marker %s, %d characters) at %s\n",
			o.title, strings.Join(o.labels, ","), where, marker, len([]rune(body)), o.apiDisplay())
		_, err := io.Out.Write([]byte(body))
		return err
	}
	c, err := o.client()
	if err != nil {
		return err
	}
	res, err := c.UpsertIssue(ctx, owner, name, o.title, body, o.labels)
	if err != nil {
		return err
	}
	fmt.Fprintf(io.ErrOut, "%s issue %s#%d\n", describe(res.Action), where, res.ID)
	fmt.Fprintln(io.Out, res.URL)
	return nil
}

func describe(a ghreport.Action) string {
	switch a {
	case ghreport.Created:
		return "created"
	case ghreport.Updated:
		return "updated"
	}
	return "unchanged:"
}

// ownerRepo reads --repo, else GITHUB_REPOSITORY.
func (o *githubOptions) ownerRepo() (string, string, error) {
	repo := o.repo
	if repo == "" {
		repo, _ = o.env("GITHUB_REPOSITORY")
	}
	if repo == "" {
		return "", "", flagErrorf("repo", "the repository is required (OWNER/NAME, or set GITHUB_REPOSITORY)")
	}
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.ContainsAny(name, "/?#% ") || strings.ContainsAny(owner, "?#% ") {
		return "", "", flagErrorf("repo", "%q is not OWNER/NAME", repo)
	}
	return owner, name, nil
}

// readBody reads --body-file (- is stdin) and checks the marker and the
// size before anything is sent.
func (o *githubOptions) readBody(s *streams) (string, string, error) {
	var r io.Reader
	name := o.bodyFile
	if name == "" || name == "-" {
		if s.In == nil {
			return "", "", flagErrorf("body-file", "no standard input: name a file")
		}
		r, name = s.In, "stdin"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return "", "", flagErrorf("body-file", "%s: %v", name, unwrapPathError(err))
		}
		defer f.Close()
		r = f
	}
	b, err := readAtMost(r, maxBodyFileBytes)
	if err != nil {
		return "", "", fmt.Errorf("--body-file %s: %w", name, err)
	}
	body := string(b)
	if strings.TrimSpace(body) == "" {
		return "", "", flagErrorf("body-file", "%s is empty", name)
	}
	marker, err := ghreport.Marker(body)
	if err != nil {
		return "", "", flagErrorf("body-file", "%s: %v", name, err)
	}
	return body, marker, nil
}

func readAtMost(r io.Reader, n int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) == n {
		return nil, fmt.Errorf("over %d bytes: GitHub accepts at most %d characters", n-1, ghreport.MaxBodyChars)
	}
	return b, nil
}

// apiURLOrEnv is --github-api-url, else GITHUB_API_URL, else github.com's.
func (o *githubOptions) apiURLOrEnv() string {
	if o.apiURL != "" {
		return o.apiURL
	}
	u, _ := o.env("GITHUB_API_URL")
	return u
}

func (o *githubOptions) apiDisplay() string {
	if u := o.apiURLOrEnv(); u != "" {
		return u
	}
	return ghreport.DefaultBaseURL
}

// client builds the API client from GITHUB_TOKEN (else GH_TOKEN).
func (o *githubOptions) client() (*ghreport.Client, error) {
	token, _ := o.env("GITHUB_TOKEN")
	if token == "" {
		token, _ = o.env("GH_TOKEN")
	}
	if token == "" {
		return nil, &usageError{msg: "no GitHub token: set GITHUB_TOKEN (or GH_TOKEN)"}
	}
	c, err := ghreport.New(token, o.apiURLOrEnv(), o.httpClient)
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	return c, nil
}
