// The little of fengari (a Lua 5.3 VM in JavaScript) the health-check test uses.
declare module 'fengari' {
  type LuaState = object;
  const fengari: {
    to_luastring(s: string): Uint8Array;
    lua: {
      LUA_OK: number;
      lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
      lua_tojsstring(L: LuaState, idx: number): string;
      lua_pop(L: LuaState, n: number): void;
    };
    lauxlib: {
      luaL_newstate(): LuaState;
      luaL_loadstring(L: LuaState, s: Uint8Array): number;
      luaL_requiref(L: LuaState, name: Uint8Array, open: (L: LuaState) => number, global: number): void;
    };
    lualib: { luaopen_base(L: LuaState): number };
  };
  export default fengari;
}
