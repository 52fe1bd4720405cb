/**
 * The documentation holds together: the README is a quick start of at most
 * 400 lines that shows the example shop's files, every link between pages
 * reaches a file (and the heading it names), every link into this repository
 * on GitHub names a file that exists here, every `<!-- example: PATH -->`
 * block is PATH word for word, and no page cites a section (§) of a
 * document its reader does not have. "No JavaScript on your server?",
 * linked first from the README, shows every file of the PHP and Python
 * shops, and its only other blocks are the commands their package test runs.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { documentationPages, exampleBlocks, readPage, repositoryRoot } from '../../fixtures/doc-blocks.js';

/** Links into this repository on GitHub, as the pages write them: the path after the branch. */
const REPOSITORY_LINK = /^https:\/\/github\.com\/pay-checkout\/pay-checkout\/(?:tree|blob)\/main\/(.+)$/;

/** A page without its fenced code blocks and code spans, where `](` and `#` mean no link or heading. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** Every link and image target of a page. */
function linkTargets(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const headings = text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm);
  for (const [, heading] of headings) {
    const anchor = (heading as string)
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return anchors;
}

/** Every file under `folder` (a path from the repository root), node_modules and data left out. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(repositoryRoot, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(repositoryRoot.length))
    .filter((path) => !/(?:^|\/)(?:node_modules|\.data)\//.test(path));
}

describe('the documentation', () => {
  const pages = documentationPages();

  it('has a README of at most 400 lines, and pages in docs/', () => {
    const lines = readPage('README.md').split('\n').length - 1;
    assert.ok(lines <= 400, `README.md has ${lines} lines`);
    assert.ok(pages.length > 5, `docs/ has ${pages.length - 1} pages`);
  });

  it('links between its pages only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of linkTargets(readPage(page))) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : normalize(join(dirname(page), path));
        if (!existsSync(join(repositoryRoot, file))) {
          broken.push(`${page}: ${target} (no ${file})`);
        } else if (
          anchor !== undefined &&
          file.endsWith('.md') &&
          !headingAnchors(readPage(file)).has(anchor)
        ) {
          broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('links into the repository on GitHub only where the file or folder exists', () => {
    const broken: string[] = [];
    let links = 0;
    for (const page of pages) {
      for (const target of linkTargets(readPage(page))) {
        const path = REPOSITORY_LINK.exec(target)?.[1];
        if (path === undefined) continue;
        links += 1;
        if (!existsSync(join(repositoryRoot, path))) broken.push(`${page}: ${target}`);
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(links > 0, 'the pages link examples by their address on GitHub');
  });

  it('links examples by their address, never by a path the package does not ship', () => {
    const relative = pages.flatMap((page) =>
      linkTargets(readPage(page))
        .filter((target) => /^(?:\.\.\/)*examples\//.test(target))
        .map((target) => `${page}: ${target}`),
    );
    assert.deepEqual(relative, []);
  });

  it('stands alone: cites no section (§) of a document outside the repository', () => {
    const citations = pages.flatMap((page) =>
      readPage(page)
        .split('\n')
        .flatMap((line, index) => (line.includes('§') ? [`${page}:${index + 1}: ${line.trim()}`] : [])),
    );
    assert.deepEqual(citations, []);
  });

  it('shows each example file word for word', () => {
    let shown = 0;
    for (const page of pages) {
      for (const { path, code } of exampleBlocks(readPage(page))) {
        shown += 1;
        const file = readFileSync(join(repositoryRoot, path), 'utf8');
        assert.equal(code, file, `${page} shows ${path}`);
      }
    }
    assert.ok(shown > 20, `only ${shown} example blocks`);
  });

  it('shows in the README every file of the example shop but its package.json', () => {
    const shown = new Set(exampleBlocks(readPage('README.md')).map((block) => block.path));
    const files = filesUnder('examples/shop').filter((path) => !path.endsWith('package.json'));
    assert.ok(files.length >= 5, files.join(', '));
    for (const file of files) assert.ok(shown.has(file), `the README does not show ${file}`);
  });

  it('links "No JavaScript on your server?" from the README before anything else', () => {
    const readme = readPage('README.md');
    const intro = readme.slice(0, readme.indexOf('\n## '));
    assert.equal(linkTargets(intro)[0], 'docs/no-javascript.md');
  });

  it('shows in "Verifying a webhook" every receiver of examples/webhook-receivers/', () => {
    const page = readPage('docs/webhooks.md');
    const section = page.slice(page.indexOf('## Verifying a webhook'));
    const shown = new Set(exampleBlocks(section).map((block) => block.path));
    const files = filesUnder('examples/webhook-receivers');
    assert.ok(files.length >= 3, files.join(', '));
    for (const file of files) assert.ok(shown.has(file), `the section does not show ${file}`);
  });

  it('shows in "No JavaScript on your server?" every file of the PHP and Python shops, and as other code only the commands their test runs', () => {
    const page = readPage('docs/no-javascript.md');
    const shown = new Set(exampleBlocks(page).map((block) => block.path));
    const files = [...filesUnder('examples/php-shop'), ...filesUnder('examples/python-shop')].filter(
      (path) => !/(?:^|\/)(?:package\.json$|__pycache__\/)/.test(path),
    );
    assert.ok(files.length >= 8, files.join(', '));
    // Both shops take the same serve configuration: the page shows it once.
    const sameConfiguration = 'examples/python-shop/pay-checkout.json';
    assert.equal(
      readPage(sameConfiguration),
      readPage('examples/php-shop/pay-checkout.json'),
      'the two shops have one configuration',
    );
    for (const file of files.filter((path) => path !== sameConfiguration)) {
      assert.ok(shown.has(file), `the page does not show ${file}`);
    }
    const blocks = page.match(/^```\w/gm)?.length ?? 0;
    const commands = page.match(/<!-- shop-commands: \w+ -->\n```sh\n/g)?.length ?? 0;
    assert.ok(commands >= 5, `${commands} command blocks`);
    assert.equal(
      blocks,
      shown.size + commands,
      'every block a file of the shops or a command their test runs',
    );
  });
});
