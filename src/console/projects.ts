/**
 * Projects, through the client library's own classes (ProjectList, Project): a filtered, paged
 * list; create a project (administrators); a project's properties (saved with update), its Atom
 * XML (generate_xml), versions and their modes (updateMode), web interfaces, lanes and pools,
 * custom lists, child projects and reports.
 */
import { Project, ProjectList, type Mode } from '../client/index.js';
import { errorText } from './api.js';
import { append, field, fill, h, messageArea, pager, parseJsonField, pretty, table, when } from './dom.js';
import { identity } from './session.js';

const PAGE = 20;
const LOG_LEVELS = ['', 'SEVERE', 'WARNING', 'INFO', 'CONFIG', 'FINE', 'FINER', 'FINEST', 'OFF', 'ALL'];

export async function renderProjects(main: HTMLElement): Promise<void> {
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
          h('button', { type: 'button', class: 'link', onclick: () => void open(p.id!) }, p.title),
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
                await open(created.id!);
                message.show(`Project ${created.title} created (id ${created.id}).`);
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

  async function open(id: number): Promise<void> {
    const project = new Project({ id });
    const status = messageArea();
    try {
      await project.load();
    } catch (e) {
      fill(detail, h('p', { class: 'message error', role: 'alert' }, errorText(e)));
      return;
    }
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

    await Promise.all([
      project.loadVersions().then(() => fill(sections.versions, versionsTable(project, isAdmin))),
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
      project.loadLanesAndPools().then(() =>
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
        ),
      ),
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
              h('button', { type: 'button', class: 'link', onclick: () => void open(c.id!) }, c.title),
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
