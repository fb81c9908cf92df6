import { modelOf } from '@raseed/kit';
import { Schema, type Connection, type Types } from 'mongoose';

/** A message sent from the Contact Us form, kept whether or not its e-mails get through. */
export interface ContactMessage {
  _id: Types.ObjectId;
  email: string;
  phone: string | null;
  subject: string;
  message: string;
  createdAt: Date;
}

const messageSchema = new Schema(
  {
    email: { type: String, required: true },
    phone: { type: String, default: null },
    subject: { type: String, required: true },
    message: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);

export const messageModel = (conn: Connection) =>
  modelOf<ContactMessage>(conn, 'ContactMessage', messageSchema, 'contact_messages');
