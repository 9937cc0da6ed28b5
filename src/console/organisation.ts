/**
 * Lanes and pools: the account's pools with their lanes as a tree (an organisation pool's lanes
 * under their parent lane, with their manager); a lane's users in a lane mode. The users of a
 * runtime lane are added and removed here by those the REST routes let (administrators, designers
 * of a project using the lane's pool: the server says so in `canChangeUsers`); other lanes are
 * shown read-only with the reason. A lane's address is #/organisation/lanes/<id>. Administrators
 * create pools and lanes (a runtime lane, or one whose users they set).
 */
import { api, errorText, query } from './api.js';
import { field, fill, h, messageArea, pretty, table, uid } from './dom.js';
import { go, href, type Navigate } from './route.js';
import { identity } from './session.js';
import {
  fact,
  laneKind,
  statusTag,
  type LaneInfo,
  type ListAnswer,
  type PoolInfo,
  type UserInfo,
} from './users.js';

const LIST_SIZE = 1000;
const MEMBERS_PAGE = 50;

interface Members {
  items: UserInfo[];
  first: number;
  nb: number;
  canChangeUsers: boolean;
}

export async function renderOrganisation(main: HTMLElement, rest: string[]): Promise<Navigate | void> {
  const message = messageArea();
  const tree = h('nav', { class: 'tree-panel', 'aria-label': 'Organisation tree' });
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });
  const creation = h('div');
  main.append(message, creation, h('div', { class: 'organisation' }, tree, detail));

  let pools: PoolInfo[] = [];
  let lanes: LaneInfo[] = [];
  let truncated = false;
  const users = new Map<number, UserInfo>();
  async function load(): Promise<boolean> {
    try {
      const [poolPage, lanePage, userPage] = await Promise.all([
        api<ListAnswer<PoolInfo>>('GET', `/pools?nb=${LIST_SIZE}`),
        api<ListAnswer<LaneInfo>>('GET', `/lanes?nb=${LIST_SIZE}`),
        api<ListAnswer<UserInfo>>('GET', `/users?nb=${LIST_SIZE}`),
      ]);
      pools = poolPage.items;
      lanes = lanePage.items;
      truncated = poolPage.total > pools.length || lanePage.total > lanes.length;
      users.clear();
      for (const u of userPage.items) users.set(u.id, u);
      return true;
    } catch (e) {
      message.show(errorText(e), 'error');
      return false;
    }
  }
  const userName = (id: number) => users.get(id)?.login ?? `user ${id}`;
  const poolOf = (lane: LaneInfo) => pools.find((p) => p.id === lane.poolId);
  const laneButtons = new Map<number, HTMLButtonElement>();

  function laneItem(
    lane: LaneInfo,
    children: Map<number | null, LaneInfo[]>,
    seen: Set<number>,
  ): HTMLElement {
    seen.add(lane.id);
    const button = h(
      'button',
      {
        type: 'button',
        class: 'link',
        onclick: () => go(href('organisation', 'lanes', lane.id), () => open(lane)),
      },
      lane.name,
    );
    laneButtons.set(lane.id, button);
    const below = (children.get(lane.id) ?? []).filter((c) => !seen.has(c.id));
    return h(
      'li',
      null,
      button,
      ' ',
      h('span', { class: `tag kind-${laneKind(lane)}` }, laneKind(lane)),
      lane.managerId !== null
        ? h('span', { class: 'meta' }, ` managed by ${userName(lane.managerId)}`)
        : null,
      below.length > 0
        ? h(
            'ul',
            null,
            below.map((c) => laneItem(c, children, seen)),
          )
        : null,
    );
  }

  function poolItem(pool: PoolInfo): HTMLElement {
    const own = lanes.filter((l) => l.poolId === pool.id);
    const ids = new Set(own.map((l) => l.id));
    // Lanes under their parent; a lane whose parent is elsewhere (or none) is a root.
    const children = new Map<number | null, LaneInfo[]>();
    for (const lane of own) {
      const parent = lane.parentId !== null && ids.has(lane.parentId) ? lane.parentId : null;
      children.set(parent, [...(children.get(parent) ?? []), lane]);
    }
    const seen = new Set<number>();
    const roots = (children.get(null) ?? []).map((l) => laneItem(l, children, seen));
    return h(
      'li',
      { class: 'pool' },
      h('span', { class: 'pool-name' }, pool.name),
      ' ',
      pool.isOrganization ? h('span', { class: 'tag kind-organisation' }, 'organisation') : null,
      h('span', { class: 'meta' }, ` ${own.length} ${own.length === 1 ? 'lane' : 'lanes'}`),
      roots.length > 0 ? h('ul', null, roots) : null,
    );
  }

  function showTree(): void {
    laneButtons.clear();
    fill(
      tree,
      h('h2', null, 'Pools and lanes'),
      pools.length === 0
        ? h(
            'p',
            { class: 'meta' },
            identity()!.user.isAdmin
              ? 'No pool yet: create one above, then its lanes.'
              : 'No pool yet: an administrator creates pools and lanes.',
          )
        : h('ul', { class: 'tree' }, pools.map(poolItem)),
      truncated ? h('p', { class: 'meta' }, `Only the first ${LIST_SIZE} pools and lanes are shown.`) : null,
    );
    if (identity()!.user.isAdmin) fill(creation, creationForms());
  }

  /** Administrators: a new pool; a new lane in a pool (runtime or not, under a parent lane). */
  function creationForms(): HTMLElement {
    const poolName = h('input', { name: 'pool-name', required: true, maxlength: 255, autocomplete: 'off' });
    const organisation = h('input', { type: 'checkbox', name: 'organisation' });
    const laneName = h('input', { name: 'lane-name', required: true, maxlength: 255, autocomplete: 'off' });
    const pool = h(
      'select',
      { name: 'pool', required: true },
      pools.map((p) => h('option', { value: p.id }, p.name)),
    );
    const parent = h('select', { name: 'parent' });
    const showParents = () =>
      fill(
        parent,
        h('option', { value: '' }, '(none)'),
        lanes.filter((l) => String(l.poolId) === pool.value).map((l) => h('option', { value: l.id }, l.name)),
      );
    pool.addEventListener('change', showParents);
    showParents();
    const runtime = h('input', { type: 'checkbox', name: 'runtime', checked: true });
    const created = async (text: string, lane?: LaneInfo) => {
      await load();
      showTree();
      if (lane) go(href('organisation', 'lanes', lane.id), () => open(lane));
      message.show(text);
    };
    return h(
      'div',
      { class: 'row' },
      h(
        'form',
        {
          class: 'inline',
          'aria-label': 'Create a pool',
          onsubmit: async (e: Event) => {
            e.preventDefault();
            try {
              const made = await api<PoolInfo>('POST', '/pools', {
                name: poolName.value.trim(),
                isOrganization: organisation.checked,
              });
              await created(`Pool ${made.name} created (id ${made.id}): add its lanes.`);
            } catch (err) {
              message.show(errorText(err), 'error');
            }
          },
        },
        field('New pool', poolName),
        h('div', { class: 'field checkbox' }, h('label', null, organisation, ' Organisation')),
        h('button', { type: 'submit' }, 'Create pool'),
      ),
      pools.length === 0
        ? null
        : h(
            'form',
            {
              class: 'inline',
              'aria-label': 'Create a lane',
              onsubmit: async (e: Event) => {
                e.preventDefault();
                try {
                  const made = await api<LaneInfo>('POST', `/pools/${pool.value}/lanes`, {
                    name: laneName.value.trim(),
                    runtime: runtime.checked,
                    ...(parent.value ? { parentId: Number(parent.value) } : {}),
                  });
                  await created(
                    `Lane ${made.name} created (id ${made.id})${made.runtime ? ', a runtime lane' : ''}.`,
                    made,
                  );
                } catch (err) {
                  message.show(errorText(err), 'error');
                }
              },
            },
            field('New lane', laneName),
            field('In pool', pool),
            field('Parent lane', parent),
            h(
              'div',
              { class: 'field checkbox' },
              h('label', null, runtime, ' Runtime (scripts and designers add its users)'),
            ),
            h('button', { type: 'submit' }, 'Create lane'),
          ),
    );
  }

  if (!(await load())) return;
  showTree();

  async function open(lane: LaneInfo): Promise<void> {
    for (const [id, button] of laneButtons)
      if (id === lane.id) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    const pool = poolOf(lane);
    const poolName = pool?.name ?? `pool ${lane.poolId}`;
    let first = 0;
    const mode = h(
      'select',
      {
        onchange: () => {
          first = 0;
          void showMembers();
        },
      },
      h('option', { value: 'LIVE' }, 'LIVE'),
      h('option', { value: 'ACCEPTANCE' }, 'ACCEPTANCE'),
    );
    const members = h('div');
    const changes = h('div');
    const laneMessage = messageArea();

    async function change(method: 'PUT' | 'DELETE', user: { id: number; login: string }): Promise<void> {
      try {
        await api(method, `/lanes/${lane.id}/users/${user.id}${query({ mode: mode.value })}`);
        await showMembers();
        laneMessage.show(
          method === 'PUT'
            ? `${user.login} added to ${lane.name} (${mode.value}).`
            : `${user.login} removed from ${lane.name} (${mode.value}).`,
        );
      } catch (e) {
        laneMessage.show(errorText(e), 'error');
      }
    }

    async function showMembers(): Promise<void> {
      let answer: Members;
      try {
        answer = await api<Members>(
          'GET',
          `/lanes/${lane.id}/users${query({ mode: mode.value, first, nb: MEMBERS_PAGE })}`,
        );
      } catch (e) {
        fill(members, h('p', { class: 'message error', role: 'alert' }, errorText(e)));
        return;
      }
      const editable = lane.runtime && answer.canChangeUsers;
      fill(
        members,
        table(
          `Users of ${lane.name} (${mode.value})`,
          editable ? ['Id', 'Login', 'Name', 'Status', ''] : ['Id', 'Login', 'Name', 'Status'],
          answer.items.map((u) => [
            String(u.id),
            u.login,
            u.name,
            statusTag(u.status),
            editable
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'link danger',
                    'aria-label': `Remove ${u.login}`,
                    onclick: () => void change('DELETE', u),
                  },
                  'Remove',
                )
              : null,
          ]),
        ),
        h(
          'div',
          { class: 'row pager' },
          h(
            'button',
            {
              type: 'button',
              disabled: first === 0,
              onclick: () => {
                first = Math.max(0, first - MEMBERS_PAGE);
                void showMembers();
              },
            },
            'Previous',
          ),
          h(
            'span',
            { class: 'page-info' },
            answer.items.length === 0 ? 'No user.' : `Users ${first + 1}–${first + answer.items.length}`,
          ),
          h(
            'button',
            {
              type: 'button',
              disabled: answer.items.length < MEMBERS_PAGE,
              onclick: () => {
                first += MEMBERS_PAGE;
                void showMembers();
              },
            },
            'Next',
          ),
        ),
      );
      fill(changes, editable ? addForm() : readOnly(answer.canChangeUsers));
    }

    function readOnly(allowed: boolean): HTMLElement {
      return h(
        'p',
        { class: 'note' },
        !lane.runtime
          ? `Read only: ${lane.name} is not a runtime lane. Its users come from ${
              lane.rule ? 'its rule (lane jobs)' : 'its administrators'
            }; the console changes the users of runtime lanes only.`
          : allowed
            ? ''
            : `Read only: only an administrator of the account or a designer of a project using the pool ${poolName} may change the users of ${lane.name}.`,
      );
    }

    function addForm(): HTMLElement {
      const suggestions = h(
        'datalist',
        { id: uid('users') },
        [...users.values()].map((u) => h('option', { value: u.login }, u.name)),
      );
      const who = h('input', {
        name: 'user',
        required: true,
        maxlength: 255,
        autocomplete: 'off',
        list: suggestions.id,
      });
      return h(
        'form',
        {
          class: 'inline',
          'aria-label': `Add a user to ${lane.name}`,
          onsubmit: async (e: Event) => {
            e.preventDefault();
            try {
              const user = await api<UserInfo>('GET', `/users/${encodeURIComponent(who.value.trim())}`);
              await change('PUT', user);
            } catch (err) {
              laneMessage.show(errorText(err), 'error');
            }
          },
        },
        field('User (login, email or id)', who),
        suggestions,
        h('button', { type: 'submit', class: 'primary' }, 'Add user'),
      );
    }

    const parent = lane.parentId === null ? undefined : lanes.find((l) => l.id === lane.parentId);
    fill(
      detail,
      h('h2', null, `Lane ${lane.name} (id ${lane.id})`),
      h(
        'dl',
        { class: 'facts' },
        fact('Pool', `${poolName}${pool?.isOrganization ? ' (organisation)' : ''}`),
        fact('Kind', lane.runtime ? 'runtime: scripts and designers add its users' : laneKind(lane)),
        parent ? fact('Parent lane', parent.name) : null,
        lane.managerId !== null ? fact('Manager', userName(lane.managerId)) : null,
        lane.rule ? fact('Rule', h('code', null, pretty(lane.rule))) : null,
      ),
      h('h3', null, 'Users'),
      h('div', { class: 'row' }, field('Lane mode', mode)),
      laneMessage,
      changes,
      members,
    );
    await showMembers();
  }

  const navigate: Navigate = async ([kind, id]) => {
    if (kind === undefined) return fill(detail);
    const lane = kind === 'lanes' ? lanes.find((l) => String(l.id) === id) : undefined;
    if (lane) return open(lane);
    fill(
      detail,
      h(
        'p',
        { class: 'message error', role: 'alert' },
        kind === 'lanes' ? `No lane ${id ?? ''} in this account.` : `No such page: ${location.hash}.`,
      ),
    );
  };
  await navigate(rest);
  return navigate;
}
