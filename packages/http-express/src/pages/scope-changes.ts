/**
 * The actions (the last segment of a scope name, `messaging.v1.send` → `send`) that let an app
 * change something rather than only read it. The consent page marks such scopes "Can make
 * changes" (docs/decisions/0097). A custom scope follows the same rule: name its action with one
 * of these words for it to be marked.
 */
export const CHANGING_ACTIONS: ReadonlySet<string> = new Set(['write', 'send', 'create', 'update', 'delete', 'manage']);

/**
 * Whether `scope` lets an app make changes, by the rule on its action segment.
 *
 * @example
 * scopeAllowsChanges('messaging.v1.send'); // true
 * scopeAllowsChanges('admin.v1.attributes.read'); // false
 */
export function scopeAllowsChanges(scope: string): boolean {
  const action = scope.slice(scope.lastIndexOf('.') + 1).toLowerCase();
  return CHANGING_ACTIONS.has(action);
}
