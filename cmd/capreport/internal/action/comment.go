package action

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/diff"
	ghreport "github.com/capreport/capreport/report/github"
	"github.com/capreport/capreport/report/plot"
)

// maxImagedWorkloads bounds how many autoscalers get hosted plots.
const maxImagedWorkloads = 10

// githubOptions are the flags `comment github` and `issue github` share:
// where GitHub is and who is asking.
type githubOptions struct {
	repo       string
	token      string
	apiURL     string
	graphqlURL string
	dryRun     bool

	cmdutil.GHDeps
}

func (o *githubOptions) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&o.repo, "repo", "", "repository as OWNER/NAME (default $GITHUB_REPOSITORY)")
	fl.StringVar(&o.token, "github-token", "", "token (default $GITHUB_TOKEN, else $GH_TOKEN); prefer the variable: a flag shows in the process list")
	fl.StringVar(&o.apiURL, "github-api-url", "", "REST API URL, e.g. https://ghe.example.com/api/v3/ (default $GITHUB_API_URL, else https://api.github.com/)")
	fl.StringVar(&o.graphqlURL, "github-graphql-url", "", "GraphQL URL (default $GITHUB_GRAPHQL_URL, else derived from the API URL)")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print the body and what would be done, without contacting GitHub or writing the summary")
}

// commentOptions are the inputs of `capreport comment github`.
type commentOptions struct {
	ios *cmdutil.IOStreams
	ctx context.Context // the command's, set before runF
	postOptions
	githubOptions
	pr           int
	behavior     string
	when         string
	images       string
	imagesBranch string
}

// Values of --when: when a comment is written at all.
const (
	whenChanged    = "changed"     // create only when an autoscaler changed; update an earlier comment whatever happened
	whenAlways     = "always"      // create or update every time
	whenUpdateOnly = "update-only" // never create; update an earlier comment
)

func NewCmdComment(f *cmdutil.Factory) *cobra.Command {
	return platformCmd("comment", "Post the report as a pull request's sticky comment",
		newCommentGitHubCmd(f, nil))
}

// platformCmd is a command whose subcommands name where to post (github
// today), as `infracost comment github` does.
func platformCmd(use, short string, platforms ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Long:    short + ".\n\nThe platform is a subcommand: " + use + " github.",
		Example: "  capreport " + use + " github --report report.json --repo acme/deploy",
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(platforms...)
	return cmd
}

// newCommentGitHubCmd builds the command; runF, when set, receives the
// parsed options instead of running (flag-parsing tests).
func newCommentGitHubCmd(f *cmdutil.Factory, runF func(*commentOptions) error) *cobra.Command {
	o := &commentOptions{ios: f.IOStreams, postOptions: postOptions{env: f.Env}, githubOptions: githubOptions{GHDeps: f.GHDeps}}
	cmd := &cobra.Command{
		Use:   "github --report HEAD.json [--base BASE.json]",
		Short: "Post or update the sticky pull-request comment on GitHub",
		Long: "comment github renders the comment from JSON reports (the diff base → head with --base,\n" +
			"else the report) and posts it on a pull request as one sticky comment, found again by the\n" +
			"hidden marker on its first line. The full report is appended to the job summary first\n" +
			"($GITHUB_STEP_SUMMARY), so it reaches the run even when posting fails.\n\n" +
			"Behaviours: update (edit the latest marked comment in place, create it if absent; nothing is\n" +
			"written when the body is unchanged), new (always create), hide-and-new (minimize earlier\n" +
			"marked comments as outdated, then create), delete-and-new (delete them, then create).\n" +
			"--when says whether to write at all: changed (the default: a pull request that changes no\n" +
			"autoscaler gets no comment, and an earlier comment is updated to say so rather than left\n" +
			"stale), always, or update-only (never create; keep an earlier comment current).\n\n" +
			"Inside GitHub Actions nothing else is needed: the repository, the API URLs and the pull\n" +
			"request come from GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_GRAPHQL_URL and the event\n" +
			"(GITHUB_EVENT_PATH; for a workflow_run event the pull request is looked up from the run's\n" +
			"head, never taken from the artifact). The token needs pull-requests: write. A pull request\n" +
			"from a fork gets a read-only token: comment from a workflow_run job (docs/github-action.md).\n\n" +
			"--images branch commits PNG plots to a branch (contents: write; same-repository pull\n" +
			"requests only) and shows them in the comment; otherwise the comment carries Mermaid charts\n" +
			"and a link to the run's artifacts.",
		Example: "  capreport deploy --format json > head.json\n" +
			"  capreport deploy --ref origin/main --format json > base.json\n" +
			"  capreport comment github --report head.json --base base.json --pr 42 --repo acme/deploy",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.ctx = cmd.Context()
			if runF != nil {
				return runF(o)
			}
			return runCommentGitHub(o)
		},
	}
	o.postOptions.register(cmd, true, "capreport")
	o.githubOptions.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&o.pr, "pr", 0, "pull request number (default: from the event)")
	fl.StringVar(&o.behavior, "behavior", string(ghreport.BehaviorUpdate), "update, new, hide-and-new or delete-and-new")
	fl.StringVar(&o.when, "when", whenChanged, "changed (comment only when an autoscaler changed against --base; always update an earlier comment), always, or update-only")
	fl.StringVar(&o.images, "images", "none", "none, or branch: commit PNG plots to --images-branch and show them")
	fl.StringVar(&o.imagesBranch, "images-branch", "capreport-images", "branch that holds the plots of --images branch")
	return cmd
}

func runCommentGitHub(o *commentOptions) error {
	ctx, s := o.ctx, o.ios
	behavior, err := ghreport.ParseBehavior(o.behavior)
	if err != nil {
		return cmdutil.FlagErrorf("behavior", "%w", err)
	}
	if o.images != "none" && o.images != "branch" {
		return cmdutil.FlagErrorf("images", "%q is not none or branch", o.images)
	}
	if o.when != whenChanged && o.when != whenAlways && o.when != whenUpdateOnly {
		return cmdutil.FlagErrorf("when", "%q is not changed, always or update-only", o.when)
	}
	if o.pr < 0 {
		return cmdutil.FlagErrorf("pr", "must be positive")
	}
	p, err := prepare(&o.postOptions, &o.githubOptions)
	if err != nil {
		return err
	}
	owner, name, repo, l, ev, note := p.owner, p.name, p.repo, p.loaded, p.ev, p.note

	if o.dryRun {
		where := fmt.Sprintf("%s#%d", repo, o.pr)
		if o.pr == 0 {
			where = repo + " (the pull request of the event)"
		}
		fmt.Fprintf(s.ErrOut, "dry run: would post a comment on %s (behavior %s, images %s) to %s\n", where, behavior, o.images, o.apiDisplay())
		_, err := s.Out.Write(l.body(o.title, report.DefaultMaxChars, 0, "", note, nil))
		return err
	}
	// The report reaches the run before GitHub is contacted at all, so a
	// refused token or an unreachable API still leaves it in the summary
	// and the step outputs.
	if err := o.record(s, l, note); err != nil {
		return err
	}
	c, err := o.client()
	if err != nil {
		return err
	}
	pr, err := o.pullRequest(ctx, c, ev, owner, name)
	if err != nil {
		return err
	}
	create := o.when == whenAlways || o.when == whenChanged && l.changed()
	var images map[string][]report.Image
	if create || o.when == whenUpdateOnly {
		images = o.publishImages(ctx, s, c, ev, l, owner, name, pr)
	}
	body := l.body(o.title, report.DefaultMaxChars, 0, "", note, images)
	var res ghreport.Result
	if create {
		res, err = c.UpsertPRComment(ctx, owner, name, pr, string(body), behavior)
	} else {
		res, err = c.UpdatePRComment(ctx, owner, name, pr, string(body))
	}
	if err != nil {
		return err
	}
	where := fmt.Sprintf("%s#%d", repo, pr)
	if res.Action == ghreport.Skipped {
		fmt.Fprintf(s.ErrOut, "no comment on %s: %s, and there is no earlier comment to update (--when %s)\n", where, o.whyNot(l), o.when)
		return nil
	}
	if n := len(res.Hidden); n > 0 {
		fmt.Fprintf(s.ErrOut, "hid %d earlier comment(s) on %s\n", n, where)
	}
	if n := len(res.Deleted); n > 0 {
		fmt.Fprintf(s.ErrOut, "deleted %d earlier comment(s) on %s\n", n, where)
	}
	fmt.Fprintf(s.ErrOut, "%s comment %d on %s\n", describe(res.Action), res.ID, where)
	fmt.Fprintln(s.Out, res.URL)
	return o.writeOutputs("comment-url", res.URL)
}

// whyNot says why --when did not create a comment.
func (o *commentOptions) whyNot(l *loaded) string {
	if o.when == whenUpdateOnly {
		return "update-only creates none"
	}
	return "no autoscaler changed against the base"
}

// changed reports whether the comment has news: without a base, the report
// itself; with one, an autoscaler added, removed or changed.
func (l *loaded) changed() bool {
	return l.base == nil || diff.Compare(*l.base, *l.head).Counts.Changed > 0
}

// posting is what both GitHub commands read before they post: where, the
// reports, the event, and the note linking the run's artifacts.
type posting struct {
	owner, name, repo string
	*loaded
	ev   *ghEvent
	note string
}

func prepare(po *postOptions, gh *githubOptions) (*posting, error) {
	owner, name, err := gh.ownerRepo()
	if err != nil {
		return nil, err
	}
	l, err := po.load()
	if err != nil {
		return nil, err
	}
	ev, err := readEvent(gh.Env)
	if err != nil {
		return nil, err
	}
	repo := owner + "/" + name
	return &posting{owner: owner, name: name, repo: repo, loaded: l, ev: ev,
		note: artifactsNote(ev.runURL(gh.Env, gh.serverURL(), repo))}, nil
}

// pullRequest is --pr, else the pull request of the event: its number on
// pull_request events, looked up from the run's head on workflow_run.
func (o *commentOptions) pullRequest(ctx context.Context, c *ghreport.Client, ev *ghEvent, owner, name string) (int, error) {
	switch {
	case o.pr > 0:
		return o.pr, nil
	case ev != nil && ev.PullRequest != nil && ev.PullRequest.Number > 0:
		return ev.PullRequest.Number, nil
	case ev != nil && ev.WorkflowRun != nil:
		wr := ev.WorkflowRun
		if wr.Event != "" && wr.Event != "pull_request" {
			return 0, fmt.Errorf("the workflow run was triggered by %q, not by a pull request: nothing to comment on", wr.Event)
		}
		return c.FindPullRequest(ctx, owner, name, wr.HeadRepository.Owner.Login, wr.HeadBranch, wr.HeadSHA)
	}
	return 0, cmdutil.FlagErrorf("pr", "no pull request: pass --pr, or run on a pull_request or workflow_run event (GITHUB_EVENT_PATH)")
}

// publishImages commits the plots of the autoscalers the comment shows in
// detail and returns their links; any failure leaves the comment with its
// Mermaid charts and says why, since the comment matters more.
func (o *commentOptions) publishImages(ctx context.Context, s *cmdutil.IOStreams, c *ghreport.Client, ev *ghEvent, l *loaded, owner, name string, pr int) map[string][]report.Image {
	if o.images != "branch" {
		return nil
	}
	if ev.fromFork() {
		fmt.Fprintln(s.ErrOut, "capreport: notice: --images branch is for same-repository pull requests (a fork's run must not write the repository); the comment carries Mermaid charts")
		return nil
	}
	var ims []ghreport.Image
	meta := map[string][]report.Image{}
	for _, w := range imagedWorkloads(l) {
		figs, err := plot.ForWorkload(w, "png")
		if err != nil {
			fmt.Fprintf(s.ErrOut, "capreport: warning: plots of %s: %v\n", w.ID, err)
			continue
		}
		for _, f := range figs {
			ims = append(ims, ghreport.Image{Name: f.Name, Data: f.Data})
			meta[w.ID] = append(meta[w.ID], report.Image{Alt: f.Title, URL: f.Name})
		}
	}
	if len(ims) == 0 {
		return nil
	}
	sha := ev.headSHA()
	if sha == "" {
		sha, _ = o.githubOptions.Env("GITHUB_SHA")
	}
	dir := "pr-" + strconv.Itoa(pr)
	if sha = strings.ToLower(sha); len(sha) >= 12 && strings.Trim(sha, "0123456789abcdef") == "" {
		dir += "/" + sha[:12]
	}
	pub, err := c.PublishImages(ctx, owner, name, o.imagesBranch, dir, o.serverURL(), ims)
	if err != nil {
		fmt.Fprintf(s.ErrOut, "capreport: warning: plots not published, the comment carries Mermaid charts instead: %v\n", err)
		return nil
	}
	for id, list := range meta {
		for i := range list {
			list[i].URL = pub.URL(list[i].URL)
		}
		meta[id] = list
	}
	fmt.Fprintf(s.ErrOut, "published %d plot(s) to %s/%s@%s (%s)\n", len(ims), owner, name, o.imagesBranch, pub.Dir)
	return meta
}

// imagedWorkloads are the autoscalers whose details the comment shows
// first: the changed ones of a diff, else the worst priced ones.
func imagedWorkloads(l *loaded) []contract.Workload {
	var ws []contract.Workload
	if l.base != nil {
		for _, c := range diff.Compare(*l.base, *l.head).Changes {
			if c.Head != nil {
				ws = append(ws, *c.Head)
			}
		}
	} else {
		for _, w := range report.WorstFirst(l.head.Workloads) {
			if w.Verdict != contract.VerdictUnpriced {
				ws = append(ws, w)
			}
		}
	}
	return ws[:min(len(ws), maxImagedWorkloads)]
}

func artifactsNote(runURL string) string {
	if runURL == "" {
		return ""
	}
	return fmt.Sprintf("📎 Plots, the HTML report and the JSON are in [the run's artifacts](%s).", runURL)
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
		repo, _ = o.Env("GITHUB_REPOSITORY")
	}
	if repo == "" {
		return "", "", cmdutil.FlagErrorf("repo", "the repository is required (OWNER/NAME, or set GITHUB_REPOSITORY)")
	}
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.ContainsAny(name, "/?#% ") || strings.ContainsAny(owner, "?#% ") {
		return "", "", cmdutil.FlagErrorf("repo", "%q is not OWNER/NAME", repo)
	}
	return owner, name, nil
}

// orEnv is the flag's value, else the variable's.
func (o *githubOptions) orEnv(flag, variable string) string {
	if flag != "" {
		return flag
	}
	v, _ := o.Env(variable)
	return v
}

func (o *githubOptions) apiDisplay() string {
	if u := o.orEnv(o.apiURL, "GITHUB_API_URL"); u != "" {
		return u
	}
	return ghreport.DefaultBaseURL
}

// serverURL is the web root links point at: GITHUB_SERVER_URL, else the
// one matching the API URL.
func (o *githubOptions) serverURL() string {
	if u, _ := o.Env("GITHUB_SERVER_URL"); strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return strings.TrimSuffix(u, "/") + "/"
	}
	return ghreport.ServerURL(o.orEnv(o.apiURL, "GITHUB_API_URL"))
}

// client builds the API client; the token is --github-token, else
// GITHUB_TOKEN, else GH_TOKEN, and is never printed.
func (o *githubOptions) client() (*ghreport.Client, error) {
	token := o.token
	for _, v := range []string{"GITHUB_TOKEN", "GH_TOKEN"} {
		if token == "" {
			token, _ = o.Env(v)
		}
	}
	if token == "" {
		return nil, &cmdutil.UsageError{Msg: "no GitHub token: set GITHUB_TOKEN (or GH_TOKEN, or --github-token)"}
	}
	c, err := ghreport.New(ghreport.Config{
		Token: token, BaseURL: o.orEnv(o.apiURL, "GITHUB_API_URL"), GraphQLURL: o.orEnv(o.graphqlURL, "GITHUB_GRAPHQL_URL"),
		HTTPClient: o.HTTPClient, Retry: o.Retry,
	})
	if err != nil {
		return nil, &cmdutil.UsageError{Msg: err.Error()}
	}
	return c, nil
}
