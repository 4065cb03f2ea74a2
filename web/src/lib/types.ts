/** The signed-in user as `GET /api/auth/me` and `POST /api/auth/login` return it. */
export type User = {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'user';
};
