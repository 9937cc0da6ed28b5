/**
 * Projects, through the client library's own classes (ProjectList, Project): a filtered, paged
 * list; create a project (administrators); a project's properties (saved with update), its Atom
 * XML (generate_xml), versions and their modes (updateMode), web interfaces, lanes and pools,
 * custom lists, child projects and reports. A project's address is #/projects/<id>. Administrators
 * add a version in a mode (a LIVE version makes the project's web interfaces open LIVE) and let
 * the project use a pool (its runtime lanes are then the project's designed code's to fill).
 */
import { Project, ProjectList, type Mode } from '../client/index.js';
import { api, errorText } from './api.js';
import { go, href, startOpening, type Navigate } from './route.js';
import type { ListAnswer, PoolInfo } from './users.js';
import { append, field, fill, h, messageArea, pager, parseJsonField, pretty, table, when } from './dom.js';
import { identity } from './session.js';

const PAGE = 20;
const LOG_LEVELS = ['', 'SEVERE', 'WARNING', 'INFO', 'CONFIG', 'FINE', 'FINER', 'FINEST', 'OFF', 'ALL'];

export async function renderProjects(main: HTMLElement, rest: string[]): Promise<Navigate> {
  const isAdmin = identity()!.user.isAdmin;
  const projects = new ProjectList();
  const list = h('div', { class: 'list' });
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });
  const message = messageArea();
  const search = h('input', { type: 'search', autocomplete: 'off', placeholder: 'part of a title' });
  const paging = pager(PAGE, () => void refresh());

  async function refresh(): Promise<void> {
    const words = search.value.trim();
    try {
      await projects.load({
        pagination: { nb: PAGE, first: paging.first, orderby: 'id', order: 'DESC' },
        filters: words && !/\s/.test(words) ? [{ filter: 'title', operator: 'CONTAINS', value: words }] : [],
      });
    } catch (e) {
      message.show(errorText(e), 'error');
      return;
    }
    fill(
      list,
      table(
        'Projects',
        ['Id', 'Title', 'Type', 'Author', 'Updated'],
        projects.projects.map((p) => [
          String(p.id),
          h('button', { type: 'button', class: 'link', onclick: () => select(p.id!) }, p.title),
          p.type,
          p.author?.name ?? '',
          when(p.updated),
        ]),
      ),
    );
    paging.show(projects.projects.length, projects.total, 'No projects');
  }

  search.addEventListener('input', () => ((paging.first = 0), void refresh()));

  const title = h('input', { required: true, autocomplete: 'off' });
  const type = h('input', { value: 'PROCESS', autocomplete: 'off' });
  const create = isAdmin
    ? h(
        'form',
        {
          class: 'inline',
          'aria-label': 'Create a project',
          onsubmit: async (event: Event) => {
            event.preventDefault();
            const project = new Project({ title: title.value });
            project.type = type.value || 'PROCESS';
            await project.create({
              onSuccess: async (created) => {
                title.value = '';
                await refresh();
                select(created.id!);
                message.show(
                  `Project ${created.title} created (id ${created.id}): add a version below to publish it in a mode.`,
                );
              },
              onFailure: (e) => message.show(errorText(e), 'error'),
            });
          },
        },
        field('New project title', title),
        field('Type', type),
        h('button', { type: 'submit' }, 'Create'),
      )
    : null;

  const select = (id: number) => go(href('projects', id), () => open(id));

  async function open(id: number): Promise<void> {
    const latest = startOpening(detail);
    const project = new Project({ id });
    const status = messageArea();
    try {
      await project.load();
    } catch (e) {
      if (latest()) fill(detail, h('p', { class: 'message error', role: 'alert' }, errorText(e)));
      return;
    }
    if (!latest()) return;
    const titleInput = h('input', { value: project.title, required: true, disabled: !isAdmin });
    const typeInput = h('input', { value: project.type, disabled: !isAdmin });
    const logLevel = h(
      'select',
      { disabled: !isAdmin },
      LOG_LEVELS.map((l) =>
        h('option', { value: l, selected: (project.logLevel ?? '') === l }, l || '(mode rule)'),
      ),
    );
    const summary = h('textarea', { class: 'json', rows: 3, spellcheck: 'false', disabled: !isAdmin });
    summary.value = pretty(project.summary);
    const content = h('textarea', { class: 'json', rows: 5, spellcheck: 'false', disabled: !isAdmin });
    content.value = pretty(project.content);
    const xml = h('pre', { class: 'output small', hidden: true });

    const properties = h(
      'form',
      {
        'aria-label': 'Project properties',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          try {
            project.title = titleInput.value;
            project.type = typeInput.value;
            project.logLevel = logLevel.value || null;
            project.summary = (parseJsonField(summary.value, 'Summary') ?? {}) as Record<string, unknown>;
            project.content = (parseJsonField(content.value, 'Content') ?? {}) as Record<string, unknown>;
            await project.update();
            await refresh();
            status.show(`Saved at ${when(project.updated)}.`);
          } catch (e) {
            status.show(errorText(e), 'error');
          }
        },
      },
      h(
        'div',
        { class: 'row' },
        field('Title', titleInput),
        field('Type', typeInput),
        field('P_log', logLevel),
      ),
      field('Summary (JSON)', summary),
      field('Content (JSON)', content),
      h(
        'div',
        { class: 'row' },
        isAdmin ? h('button', { type: 'submit', class: 'primary' }, 'Save') : null,
        h(
          'button',
          {
            type: 'button',
            onclick: async () => {
              xml.textContent = await project.generate_xml();
              xml.hidden = !xml.hidden;
            },
          },
          'Atom XML',
        ),
      ),
      status,
      xml,
    );

    const sections = {
      versions: h('div'),
      interfaces: h('div'),
      lanes: h('div'),
      lists: h('div'),
      children: h('div'),
      wf: h('div'),
      wi: h('div'),
    };
    fill(
      detail,
      h('h2', null, `${project.title} (project ${project.id})`),
      h(
        'p',
        { class: 'meta' },
        `${project.type} · by ${project.author?.name ?? 'unknown'} · updated ${when(project.updated)}`,
        project.parentId !== null ? ` · child of project ${project.parentId}` : '',
      ),
      properties,
      section('Versions', sections.versions),
      section('Web interfaces', sections.interfaces),
      section('Lanes and pools', sections.lanes),
      section('Custom lists', sections.lists),
      section('Child projects', sections.children),
      section('Workflow reports', sections.wf),
      section('Web interface reports', sections.wi),
    );

    async function showVersions(note?: string): Promise<void> {
      await project.loadVersions();
      fill(
        sections.versions,
        versionsTable(project, isAdmin),
        isAdmin ? versionForm(project, (text) => void showVersions(text)) : null,
      );
      if (project.versions.length === 0)
        sections.versions.append(
          h(
            'p',
            { class: 'meta' },
            'No version yet: add one. A version published LIVE makes the project run LIVE (its web interfaces open LIVE).',
          ),
        );
      if (note) sections.versions.append(h('p', { class: 'message ok', role: 'status' }, note));
    }

    async function showLanes(note?: string): Promise<void> {
      await project.loadLanesAndPools();
      fill(
        sections.lanes,
        table(
          'Lanes and pools',
          ['Pool', 'Lane', 'You are in it'],
          project.lanes.map((l) => [
            project.pools.find((p) => p.id === l.poolId)?.name ?? String(l.poolId),
            l.name,
            l.isMember ? 'yes' : 'no',
          ]),
        ),
        project.pools.length === 0
          ? h('p', { class: 'meta' }, 'The project uses no pool yet: its processes have no lanes.')
          : null,
        isAdmin ? await poolForm(project, (text) => void showLanes(text)) : null,
      );
      if (note) sections.lanes.append(h('p', { class: 'message ok', role: 'status' }, note));
    }

    await Promise.all([
      showVersions(),
      project.loadWebInterfaces().then((wis) =>
        fill(
          sections.interfaces,
          table(
            'Web interfaces',
            ['Id', 'Title', 'Contexts', 'Tags'],
            wis.map((w) => [String(w.id), w.title, w.contexts.join(', '), w.tags.join(', ')]),
          ),
        ),
      ),
      showLanes(),
      project.loadCustomLists().then((lists) =>
        fill(
          sections.lists,
          table(
            'Custom lists',
            ['Id', 'Name', 'Items'],
            lists.map((l) => [String(l.id), l.name, String(l.content.length)]),
          ),
        ),
      ),
      project.loadChildren().then((childs) =>
        fill(
          sections.children,
          table(
            'Child projects',
            ['Id', 'Title'],
            childs.map((c) => [
              String(c.id),
              h('button', { type: 'button', class: 'link', onclick: () => select(c.id!) }, c.title),
            ]),
          ),
        ),
      ),
      project.loadWFReports({ pagination: { nb: 20 } }).then((reports) =>
        fill(
          sections.wf,
          table(
            'Workflow reports',
            ['Request', 'Mode', 'Status', 'Created'],
            reports.map((r) => [r.id, r.mode, String(r.status), when(r.created)]),
          ),
        ),
      ),
      project.loadWIReports({ pagination: { nb: 20 } }).then((reports) =>
        fill(
          sections.wi,
          table(
            'Web interface reports',
            ['Instance', 'Title', 'Mode', 'Status'],
            reports.map((r) => [r.id, r.title, r.mode, r.status]),
          ),
        ),
      ),
    ]).catch((e: unknown) => status.show(errorText(e), 'error'));
  }

  append(main, [
    message,
    create,
    h('div', { class: 'row' }, field('Filter by title', search), paging.previous, paging.next, paging.info),
    list,
    detail,
  ]);
  await refresh();
  const navigate: Navigate = ([id]) => {
    if (id !== undefined && /^[1-9]\d*$/.test(id)) return open(Number(id));
    startOpening(detail);
    if (id === undefined) return fill(detail);
    return fill(detail, h('p', { class: 'message error', role: 'alert' }, `No project ${id}.`));
  };
  await navigate(rest);
  return navigate;
}

/** Administrators: a new version of the project, published in a mode. */
function versionForm(project: Project, done: (note: string) => void): HTMLElement {
  const status = messageArea();
  const name = h('input', { name: 'version-name', required: true, maxlength: 255, autocomplete: 'off' });
  const mode = h(
    'select',
    { name: 'version-mode' },
    ['LIVE', 'ACCEPTANCE', 'TEST'].map((m) => h('option', { value: m }, m)),
  );
  return h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Add a version',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        try {
          const made = await api<{ id: number; name: string; mode: string }>(
            'POST',
            `/projects/${project.id}/versions`,
            { name: name.value.trim(), mode: mode.value },
          );
          done(`Version ${made.name} added (id ${made.id}), published ${made.mode}.`);
        } catch (err) {
          status.show(errorText(err), 'error');
        }
      },
    },
    field('New version', name),
    field('Published in', mode),
    h('button', { type: 'submit' }, 'Add version'),
    status,
  );
}

/** Administrators: let the project use one more of the account's pools. */
async function poolForm(project: Project, done: (note: string) => void): Promise<HTMLElement> {
  const status = messageArea();
  const { items } = await api<ListAnswer<PoolInfo>>('GET', '/pools?nb=1000');
  const free = items.filter((p) => !project.pools.some((used) => used.id === p.id));
  if (free.length === 0)
    return h(
      'p',
      { class: 'meta' },
      items.length === 0
        ? 'The account has no pool: create one on the Lanes and pools page.'
        : 'The project uses every pool of the account.',
    );
  const pool = h(
    'select',
    { name: 'pool' },
    free.map((p) => h('option', { value: p.id }, p.name)),
  );
  return h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Use a pool',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        try {
          await api('PUT', `/projects/${project.id}/pools/${pool.value}`);
          done(`The project uses the pool ${pool.selectedOptions[0]?.textContent ?? pool.value}.`);
        } catch (err) {
          status.show(errorText(err), 'error');
        }
      },
    },
    field('Pool', pool),
    h('button', { type: 'submit' }, 'Use pool'),
    status,
  );
}

function section(title: string, body: HTMLElement): HTMLElement {
  return h('section', { class: 'sub' }, h('h3', null, title), body);
}

function versionsTable(project: Project, isAdmin: boolean): HTMLElement {
  const status = messageArea();
  const selects = project.versions.map((v) =>
    h(
      'select',
      { 'aria-label': `Mode of version ${v.name}`, disabled: !isAdmin },
      ['TEST', 'ACCEPTANCE', 'LIVE'].map((m) => h('option', { value: m, selected: v.mode === m }, m)),
    ),
  );
  const save = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        project.versions.forEach((v, i) => (v.mode = selects[i]!.value as Mode));
        try {
          await project.updateMode();
          status.show('Modes saved.');
        } catch (e) {
          status.show(errorText(e), 'error');
        }
      },
    },
    'Save modes',
  );
  return h(
    'div',
    null,
    table(
      'Versions',
      ['Id', 'Name', 'Mode', 'Created'],
      project.versions.map((v, i) => [String(v.id), v.name, selects[i]!, when(v.created)]),
    ),
    isAdmin && project.versions.length ? save : null,
    status,
  );
}
