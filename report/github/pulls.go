package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
)

// FindPullRequest returns the number of the open pull request of owner/repo
// whose head is headOwner:headBranch at headSHA. A workflow_run event names
// the run's head but, for a pull request from a fork, not the pull request
// itself; looking it up here means the number never comes from an artifact
// the fork's code wrote.
func (c *Client) FindPullRequest(ctx context.Context, owner, repo, headOwner, headBranch, headSHA string) (int, error) {
	if err := checkRepo(owner, repo); err != nil {
		return 0, err
	}
	if headOwner == "" || headBranch == "" || headSHA == "" {
		return 0, fmt.Errorf("the run names no head (owner %q, branch %q, commit %q)", headOwner, headBranch, headSHA)
	}
	opts := &gh.PullRequestListOptions{State: "open", Head: headOwner + ":" + headBranch, ListOptions: gh.ListOptions{PerPage: perPage}}
	where := fmt.Sprintf("%s/%s", owner, repo)
	for pages := 0; pages < maxPages; pages++ {
		page, resp, err := c.gh.PullRequests.List(ctx, owner, repo, opts)
		if err != nil {
			return 0, wrap("list the pull requests of "+where, "pull-requests: read", err)
		}
		for _, pr := range page {
			if pr.GetHead().GetSHA() == headSHA && sameLogin(pr.GetHead().GetRepo().GetOwner().GetLogin(), headOwner) {
				return pr.GetNumber(), nil
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return 0, fmt.Errorf("no open pull request of %s has the head %s:%s at %.12s (closed, or pushed to since the run: a newer run will comment)",
		where, headOwner, headBranch, headSHA)
}
