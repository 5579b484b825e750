import { aClient, aCode, aGrant, aRefreshToken, at, seedBasics, type ContractContext, type OAuthContractRepositories } from './contract-support.js';

const MCP = 'https://mcp.example.com/mcp';
const REPORTS = 'https://reports.example.com';

/**
 * RFC 8707 resources (docs/decisions/0110-resource-indicators.md): the resources of a code and of
 * a grant, through every way a grant is written (a code exchange in each of its forms, a
 * client-credentials grant) and read (by id, with a refresh token, a user's live grants); and the
 * resources a client serves (docs/decisions/0112). An empty list reads back as absent.
 */
export function describeResourceContract({ runner, repos }: ContractContext<OAuthContractRepositories>): void {
  const { describe, it, expect, beforeEach } = runner;

  beforeEach(async () => {
    await seedBasics(repos());
  });

  describe('resources of codes and grants', () => {
    it('round-trips the resources of a code, and reads none back as absent', async () => {
      const withResources = aCode('with', { resources: [REPORTS, MCP] });
      await repos().codes.save(withResources);
      await repos().codes.save(aCode('empty', { resources: [] }));
      expect(await repos().codes.findByHash('with')).toEqual(withResources);
      expect(await repos().codes.findByHash('empty')).toEqual(aCode('empty'));
      expect((await repos().codes.findByHash('empty'))?.resources).toBeUndefined();
    });

    it('keeps the resources of a grant made from a code, read by id, with its refresh token and among the user\'s live grants', async () => {
      await repos().codes.save(aCode('h', { resources: [MCP, REPORTS] }));
      const grant = aGrant('g1', { createdAt: at(30, 5), resources: [MCP, REPORTS] });
      expect(await repos().grants.createFromCode({ grant, codeHash: 'h', refreshToken: aRefreshToken('r1', 'g1') })).toBe(true);
      expect(await repos().grants.findById('g1')).toEqual(grant);
      expect(await repos().refreshTokens.findWithGrant('r1')).toEqual({ token: aRefreshToken('r1', 'g1'), grant });
      expect(await repos().grants.listActiveByUser('user1')).toEqual([grant]);
    });

    it('keeps the resource of a client-credentials grant, and reads a grant without resources as before', async () => {
      const machine = aGrant('cc', { userKey: null, sessionId: null, resources: [MCP] });
      await repos().grants.create(machine);
      await repos().grants.create(aGrant('plain', { resources: [] }));
      expect(await repos().grants.findById('cc')).toEqual(machine);
      expect(await repos().grants.findById('plain')).toEqual(aGrant('plain'));
    });
  });

  describe('resources a client serves', () => {
    it('round-trips them, and changes them only when an update names them', async () => {
      const server = aClient('rs', { redirectUris: [], grantTypes: ['client_credentials'], resourceServerFor: [REPORTS, MCP] });
      await repos().clients.create(server);
      expect(await repos().clients.findById('rs')).toEqual(server);
      expect((await repos().clients.listAll()).find((client) => client.clientId === 'rs')).toEqual(server);

      const changes = { name: 'Renamed', redirectUris: [], scopes: ['messaging.v1.read'], grantTypes: server.grantTypes, pkceRequired: false };
      expect(await repos().clients.update('rs', changes)).toBe(true);
      expect(await repos().clients.findById('rs')).toEqual({ ...server, ...changes });
      expect(await repos().clients.update('rs', { ...changes, resourceServerFor: [MCP] })).toBe(true);
      expect((await repos().clients.findById('rs'))?.resourceServerFor).toEqual([MCP]);
      expect(await repos().clients.update('rs', { ...changes, resourceServerFor: [] })).toBe(true);
      expect(await repos().clients.findById('rs')).toEqual({ ...aClient('rs', { redirectUris: [], grantTypes: ['client_credentials'] }), ...changes });
    });
  });
}
